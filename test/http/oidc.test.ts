import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type Served } from './server';
import { claimsOf, resign, rsaKey, startProvider, type TestProvider } from '../oidc/provider';

/**
 * Single sign-on (docs/security.md, "Single sign-on") against a real OpenID Provider (the npm
 * `oidc-provider` package) on loopback and the built app (`next start`), through real HTTP: our
 * /api/auth/signin/oidc → the provider's authorization endpoint → its login and consent pages → our
 * callback → a session cookie that works on /v1.
 */

let idp: TestProvider;
let app: Served;

/** Cookies of one site, as a browser keeps them (names only; paths do not matter here). */
class Jar {
  readonly cookies = new Map<string, string>();
  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a) || (/^\s*expires=/i.test(a) && Date.parse(a.split('=')[1]!) < Date.now()));
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.cookies].map(([n, v]) => `${n}=${v}`).join('; ');
  }
}

async function go(jar: Jar, url: string, init: RequestInit = {}): Promise<Response> {
  const response = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string>), cookie: jar.header() } });
  jar.take(response);
  return response;
}

const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});

interface Flow {
  /** the authorization request our app sent the browser to */
  authorization: URL;
  /** where our callback sent the browser at the end */
  landed: URL;
  /** our app's cookies (the session's among them when signed in) */
  jar: Jar;
}

/**
 * One sign-in through the provider as a browser does it, as `login` (an account of the provider).
 * `callback` may change the provider's redirect back to us (a wrong `state`).
 */
async function ssoSignIn(login: string, callback: (url: URL) => URL = (url) => url): Promise<Flow> {
  const jar = new Jar();
  const provider = new Jar();
  const { csrfToken } = (await (await go(jar, `${app.url}/api/auth/csrf`)).json()) as { csrfToken: string };
  const start = await go(jar, `${app.url}/api/auth/signin/oidc`, form({ csrfToken, callbackUrl: `${app.url}/lists` }));
  expect(start.status).toBe(302);
  const authorization = new URL(start.headers.get('location')!);
  expect(authorization.origin).toBe(idp.issuer);

  // the provider's pages: its login form, then its consent form, each answered as a person would
  let next = authorization;
  for (let step = 0; step < 12; step++) {
    if (next.origin === app.url) break;
    let response = await go(provider, next.href);
    if (response.status === 200 && next.pathname.startsWith('/interaction/')) {
      const html = await response.text();
      const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
      const prompt = /name="prompt" value="(\w+)"/.exec(html)?.[1];
      expect(action, html).toBeTruthy();
      response = await go(
        provider,
        new URL(action!.replaceAll('&amp;', '&'), next).href,
        form(prompt === 'login' ? { prompt, login, password: 'any' } : { prompt: prompt! }),
      );
    }
    expect([302, 303], `${next.href}: ${response.status}`).toContain(response.status);
    next = new URL(response.headers.get('location')!, next);
  }
  expect(next.pathname).toBe('/api/auth/callback/oidc');
  let back = await go(jar, callback(next).href, { headers: { 'x-real-ip': BROWSER } });
  let landed = new URL(back.headers.get('location')!, app.url);
  // a refusal goes through next-auth's error route to the sign-in page
  while (back.status === 302 && landed.origin === app.url && landed.pathname.startsWith('/api/auth/')) {
    back = await go(jar, landed.href);
    landed = new URL(back.headers.get('location')!, app.url);
  }
  expect(back.status).toBe(302);
  return { authorization, landed, jar };
}

const SESSION = 'next-auth.session-token';
/** the browser's address, as the proxy in front reports it */
const BROWSER = '198.51.100.23';

async function v1(jar: Jar, path: string, init: RequestInit = {}): Promise<{ status: number; body: any }> {
  const headers = { origin: app.url, 'content-type': 'application/json', ...(init.headers as Record<string, string>) };
  const response = await go(jar, `${app.url}${path}`, { ...init, headers });
  return { status: response.status, body: await response.json() };
}

/** Signs up through the app and signs in by password (next-auth's credentials), as the sign-in page does. */
async function passwordSignIn(email: string, password: string): Promise<{ jar: Jar; error: string | null }> {
  const jar = new Jar();
  const { csrfToken } = (await (await go(jar, `${app.url}/api/auth/csrf`)).json()) as { csrfToken: string };
  const response = await go(jar, `${app.url}/api/auth/callback/credentials`, form({ csrfToken, email, password, json: 'true' }));
  const { url } = (await response.json()) as { url: string };
  return { jar, error: new URL(url).searchParams.get('error') };
}

async function signUp(email: string, password: string): Promise<void> {
  const response = await fetch(`${app.url}/api/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  expect(response.status, await response.clone().text()).toBe(201);
}

beforeAll(async () => {
  idp = await startProvider();
  app = await startServer(
    {
      EV_OIDC_ISSUER: idp.issuer,
      EV_OIDC_CLIENT_ID: idp.clientId,
      EV_OIDC_CLIENT_SECRET: idp.clientSecret,
      EV_OIDC_NAME: 'Acme ID',
      // the proxy in front writes X-Real-IP: the audit rows' client address (lib/auth/origin.ts)
      EV_TRUST_PROXY: 'header:X-Real-IP',
    },
    1,
  );
  idp.register(`${app.url}/api/auth/callback/oidc`);
}, 180_000);

afterAll(async () => {
  await app?.stop();
  await idp?.close();
});

describe('single sign-on through OpenID Connect', () => {
  const password = 'correct horse battery';
  let acme: string;
  let bossJar: Jar;

  it("shows the provider's button on the sign-in page", async () => {
    const html = await (await fetch(`${app.url}/signin`)).text();
    expect(html).toMatch(/Sign in with (<!-- -->)?Acme ID/);
  });

  it("an owner claims their own email's domain (not another's), with a default role", async () => {
    await signUp('boss@acme.test', password);
    const boss = await passwordSignIn('boss@acme.test', password);
    expect(boss.error).toBeNull();
    acme = (await v1(boss.jar, '/v1/organisations')).body.current;
    bossJar = boss.jar;
    expect((await v1(boss.jar, '/v1/organisation', { method: 'PATCH', body: JSON.stringify({ sso_domain: 'other.test' }) })).status).toBe(403);
    const claimed = await v1(boss.jar, '/v1/organisation', { method: 'PATCH', body: JSON.stringify({ sso_domain: 'acme.test', sso_default_role: 'viewer' }) });
    expect(claimed.status).toBe(200);
    expect(claimed.body).toMatchObject({ id: acme, sso_domain: 'acme.test', sso_default_role: 'viewer', password_sign_in: true });
    // not from a password session: single sign-on has to work for the owner first
    const off = await v1(boss.jar, '/v1/organisation', { method: 'PATCH', body: JSON.stringify({ password_sign_in: false }) });
    expect(off.status).toBe(409);
  });

  it('signs a new person with a verified email at the claimed domain into that organisation, with its default role', async () => {
    idp.accounts.set('alice', { email: 'Alice@acme.test', email_verified: true });
    const discoveries = idp.hits.get('/.well-known/openid-configuration') ?? 0;
    const flow = await ssoSignIn('alice');
    // discovery was read, and the authorization request carried PKCE (S256), state and nonce
    expect(idp.hits.get('/.well-known/openid-configuration') ?? 0).toBeGreaterThan(discoveries);
    expect(flow.authorization.pathname).toBe('/auth');
    expect(flow.authorization.searchParams.get('code_challenge_method')).toBe('S256');
    for (const param of ['code_challenge', 'state', 'nonce']) expect(flow.authorization.searchParams.get(param)).toBeTruthy();
    expect(idp.hits.get('/token')).toBeGreaterThan(0);

    expect(flow.landed.href).toBe(`${app.url}/lists`);
    expect(flow.jar.cookies.has(SESSION)).toBe(true);
    const orgs = await v1(flow.jar, '/v1/organisations');
    expect(orgs.status).toBe(200);
    expect(orgs.body.current).toBe(acme);
    expect(orgs.body.data).toEqual([{ id: acme, name: 'boss@acme.test', role: 'viewer' }]);
    const members = await v1(flow.jar, '/v1/members');
    expect(members.body.data.map((m: { email: string; role: string }) => [m.email, m.role])).toEqual([
      ['boss@acme.test', 'owner'],
      ['alice@acme.test', 'viewer'],
    ]);
    // no usable password
    expect((await passwordSignIn('alice@acme.test', 'sso$none')).error).toBe('CredentialsSignin');

    // the audit log names the sign-in: the person, the method and where from
    const audit = await v1(bossJar, '/v1/audit?action=sign_in.succeeded');
    expect(audit.status).toBe(200);
    expect(audit.body.data.find((row: { actor: { email: string } }) => row.actor.email === 'alice@acme.test')).toMatchObject({
      method: 'oidc',
      client_address: BROWSER,
    });

    // the next sign-in is the same person, found by the identity
    const again = await ssoSignIn('alice');
    expect((await v1(again.jar, '/v1/organisations')).body.data).toEqual([{ id: acme, name: 'boss@acme.test', role: 'viewer' }]);
  });

  it('an unverified email at the claimed domain is not joined to its organisation: it lands in its own', async () => {
    idp.accounts.set('mallory', { email: 'mallory@acme.test', email_verified: false });
    const flow = await ssoSignIn('mallory');
    expect(flow.landed.href).toBe(`${app.url}/lists`);
    const orgs = await v1(flow.jar, '/v1/organisations');
    expect(orgs.body.data).toHaveLength(1);
    expect(orgs.body.data[0]).toMatchObject({ name: 'mallory@acme.test', role: 'owner' });
    expect(orgs.body.current).not.toBe(acme);
    flow.jar.cookies.set('ev-org', acme);
    const other = await v1(flow.jar, '/v1/members');
    expect(other.status).toBe(403);
    expect(other.body.error).toBe('not_a_member');
  });

  it('an unverified email never links to the existing person with that email', async () => {
    idp.accounts.set('boss-unverified', { email: 'boss@acme.test', email_verified: false });
    const flow = await ssoSignIn('boss-unverified');
    expect(flow.landed.pathname).toBe('/signin');
    expect(flow.landed.searchParams.get('error')).toBe('SsoUnverifiedEmail');
    expect(flow.jar.cookies.has(SESSION)).toBe(false);
  });

  it('a wrong state is refused', async () => {
    idp.accounts.set('bob', { email: 'bob@elsewhere.test', email_verified: true });
    const flow = await ssoSignIn('bob', (url) => {
      url.searchParams.set('state', `${url.searchParams.get('state')}x`);
      return url;
    });
    expect(flow.landed.pathname).toBe('/signin');
    expect(flow.landed.searchParams.get('error')).toBe('OAuthCallback');
    expect(flow.jar.cookies.has(SESSION)).toBe(false);
    // for that reason (openid-client's check, in the server's log)
    expect(app.log()).toContain('state mismatch');
  });

  describe('the ID token is checked', () => {
    const refused = async (tamper: (token: string) => string, reason: string) => {
      idp.tamper = tamper;
      const before = app.log().split(reason).length;
      try {
        const flow = await ssoSignIn('bob');
        expect(flow.landed.pathname).toBe('/signin');
        expect(flow.landed.searchParams.get('error')).toBe('OAuthCallback');
        expect(flow.jar.cookies.has(SESSION)).toBe(false);
        expect(app.log().split(reason).length).toBeGreaterThan(before);
      } finally {
        idp.tamper = null;
      }
    };

    it("signed again by the provider's own key with the same claims: accepted (the rewriting itself is sound)", async () => {
      let seen: Record<string, unknown> = {};
      idp.tamper = (token) => {
        seen = claimsOf(token);
        return resign(token, idp.signingKey);
      };
      try {
        const flow = await ssoSignIn('bob');
        expect(flow.landed.href).toBe(`${app.url}/lists`);
        expect(seen).toMatchObject({ sub: 'bob', email: 'bob@elsewhere.test', email_verified: true });
        expect((await v1(flow.jar, '/v1/organisations')).body.data[0]).toMatchObject({ name: 'bob@elsewhere.test', role: 'owner' });
      } finally {
        idp.tamper = null;
      }
    });

    it('a token signed by another key (same kid) is refused', async () => {
      const foreign = rsaKey();
      await refused((token) => resign(token, foreign), 'failed to validate JWT signature');
    });

    it('a tampered token (claims changed, signature kept) is refused', async () => {
      await refused((token) => {
        const [header, , signature] = token.split('.');
        const claims = { ...claimsOf(token), email: 'boss@acme.test' };
        return `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
      }, 'failed to validate JWT signature');
    });

    it('a wrong nonce is refused, even signed by the provider', async () => {
      await refused((token) => resign(token, idp.signingKey, (claims) => ({ ...claims, nonce: 'not-the-one-we-sent' })), 'nonce mismatch');
    });
  });

  it('links the existing person by verified email; password sign-in then turned off for the organisation refuses password sessions', async () => {
    const byPassword = await passwordSignIn('boss@acme.test', password);
    idp.accounts.set('boss', { email: 'boss@acme.test', email_verified: true });
    const flow = await ssoSignIn('boss');
    const orgs = await v1(flow.jar, '/v1/organisations');
    expect(orgs.body.current).toBe(acme);
    expect(orgs.body.data).toEqual([{ id: acme, name: 'boss@acme.test', role: 'owner' }]);

    const off = await v1(flow.jar, '/v1/organisation', { method: 'PATCH', body: JSON.stringify({ password_sign_in: false }) });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    expect(off.body.password_sign_in).toBe(false);

    // the single sign-on sessions act; the password session no longer does (but may list its organisations)
    expect((await v1(flow.jar, '/v1/members')).status).toBe(200);
    const refused = await v1(byPassword.jar, '/v1/members');
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('sso_required');
    expect((await v1(byPassword.jar, '/v1/organisations')).status).toBe(200);
    // and a new password sign-in of someone whose organisations all require single sign-on is refused
    expect((await passwordSignIn('boss@acme.test', password)).error).toBe('SsoRequired');
    // a wrong password is still just a wrong password (no hint about the organisation)
    expect((await passwordSignIn('boss@acme.test', 'wrong password!')).error).toBe('CredentialsSignin');
  });
});
