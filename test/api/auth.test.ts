import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import * as nextauth from '@/app/api/auth/[...nextauth]/route';
import * as signup from '@/app/api/signup/route';
import * as account from '@/app/v1/account/route';
import * as password from '@/app/v1/account/password/route';
import * as sessions from '@/app/v1/account/sessions/route';
import * as keys from '@/app/v1/keys/route';
import { LINGER } from '@/lib/api/body';
import { VERSION_CACHE_MS } from '@/lib/auth/sessions';
import { DIALECTS } from '../databases';
import { answerOf, setup } from './harness';

const SITE = 'http://app.test';

interface Sent {
  method?: string;
  headers?: Record<string, string>;
  body?: BodyInit;
  /** the site the request is addressed to (its URL and Host header) */
  site?: string;
}

function request(path: string, { method, headers = {}, body, site = SITE }: Sent = {}): Request {
  return new Request(`${site}${path}`, {
    method: method ?? (body === undefined ? 'GET' : 'POST'),
    headers: { host: new URL(site).host, ...headers },
    body,
    duplex: 'half',
  } as RequestInit);
}

/** next-auth's route as Next calls it: the segments after /api/auth as params. */
async function authCall(path: string, sent: Sent = {}) {
  const segments = path.split('?')[0]!.split('/').slice(3);
  const handler = (sent.method ?? (sent.body === undefined ? 'GET' : 'POST')) === 'GET' ? nextauth.GET : nextauth.POST;
  return answerOf(await handler(request(path, sent), { params: Promise.resolve({ nextauth: segments }) }));
}

async function v1(handler: (r: Request, s: { params: Promise<any> }) => Promise<Response>, path: string, sent: Sent = {}) {
  return answerOf(await handler(request(path, sent), { params: Promise.resolve({}) }));
}

async function signupCall(sent: Sent) {
  return answerOf(await signup.POST(request('/api/signup', sent)));
}

const cookieHeader = (setCookies: string[]) => setCookies.map((c) => c.split(';')[0]).join('; ');

/**
 * The dashboard's sign-in through next-auth's real route: csrf token first, then the credentials
 * callback as next-auth/react posts it. `session` is the session cookie ("name=value") on success.
 */
async function signIn(email: string, pass: string, { ip = '203.0.113.1', site = SITE } = {}) {
  const headers = { 'x-forwarded-for': ip };
  const csrf = await authCall('/api/auth/csrf', { headers, site });
  const jar = cookieHeader(csrf.headers.getSetCookie());
  const form = new URLSearchParams({ csrfToken: csrf.json.csrfToken, email, password: pass, callbackUrl: `${site}/lists`, json: 'true' });
  const started = performance.now();
  const res = await authCall('/api/auth/callback/credentials', {
    site,
    headers: { ...headers, cookie: jar, 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
  });
  const ms = performance.now() - started;
  const url = new URL(res.json.url);
  const session = res.headers.getSetCookie().find((c) => c.includes('next-auth.session-token='));
  return { error: url.searchParams.get('error'), session: session ? session.split(';')[0]! : null, setCookie: session ?? null, ms };
}

/** A body of `[{},{},...]` streamed in 64 KB chunks up to `total` bytes; `pulled()` says how much was read. */
function hugeArrayBody(total: number) {
  const chunk = new TextEncoder().encode('{},'.repeat((64 * 1024) / 3));
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent === 0) controller.enqueue(new TextEncoder().encode('['));
      if (sent >= total) return controller.close();
      sent += chunk.length;
      controller.enqueue(chunk);
    },
  });
  return { stream, pulled: () => sent };
}

describe.each(DIALECTS)('accounts, sign-in and sessions on %s', (dialect) => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  let n = 0;
  // Each test signs in from its own address (behind a trusted proxy) so per-address counters stay apart.
  const nextIp = () => `198.51.100.${++n}`;
  const newUser = async (ip = nextIp()) => {
    const email = `user${++n}-${dialect}@example.com`;
    const res = await signupCall({
      headers: { 'content-type': 'application/json', origin: SITE, 'x-forwarded-for': ip },
      body: JSON.stringify({ email, password: 'correct horse' }),
    });
    expect(res.status, res.text).toBe(201);
    return email;
  };

  beforeAll(async () => {
    ctx = await setup(dialect, { EV_TRUST_PROXY: 'true' });
  });
  afterAll(async () => ctx.teardown());

  describe('bounded auth bodies (real default limit, 8 KB)', () => {
    it.each([
      ['sign-up', (body: BodyInit, headers: Record<string, string>) => signupCall({ body, headers })],
      ['next-auth callback', (body: BodyInit, headers: Record<string, string>) => authCall('/api/auth/callback/credentials', { body, headers })],
    ])('%s refuses a 60 MB [{},{},...] body while it streams in, before buffering it', async (_name, send) => {
      const huge = hugeArrayBody(60 * 1024 * 1024);
      const started = performance.now();
      const res = await send(huge.stream, { 'content-type': 'application/json', origin: SITE });
      expect(res.status).toBe(413);
      expect(res.json).toMatchObject({ error: 'payload_too_large', limit: 8192 });
      expect(performance.now() - started).toBeLessThan(10_000); // refused as it streams in; what was read is checked below
      // The rest is only drained (and dropped) for a moment so the client reads the 413 (lib/api/body.ts).
      await new Promise((r) => setTimeout(r, 100));
      expect(huge.pulled()).toBeLessThanOrEqual(LINGER.bytes + 1024 * 1024);
    });

    it.each([
      ['sign-up', (body: BodyInit, headers: Record<string, string>) => signupCall({ body, headers })],
      ['next-auth callback', (body: BodyInit, headers: Record<string, string>) => authCall('/api/auth/callback/credentials', { body, headers })],
    ])('%s refuses a declared Content-Length over the limit before reading it', async (_name, send) => {
      const huge = hugeArrayBody(60 * 1024 * 1024);
      const res = await send(huge.stream, { 'content-type': 'application/json', 'content-length': String(60 * 1024 * 1024), origin: SITE });
      expect(res.json).toMatchObject({ error: 'payload_too_large' });
      await new Promise((r) => setTimeout(r, 100));
      expect(huge.pulled()).toBeLessThanOrEqual(LINGER.bytes + 1024 * 1024);
    });

    it('sign-up answers garbage, wrong shapes, wrong content types and methods with a 4xx JSON error', async () => {
      const json = { 'content-type': 'application/json', origin: SITE };
      for (const [headers, body, code, param] of [
        [json, '{"email":', 'invalid_request', 'body'],
        [json, '[{},{}]', 'invalid_request', 'body'],
        [json, '{"email":1,"password":"x"}', 'invalid_request', 'email'],
        [{ 'content-type': 'text/plain', origin: SITE }, '{"email":"a@b.c","password":"long enough"}', 'invalid_request', 'Content-Type'],
        [{ 'content-type': 'application/x-www-form-urlencoded', origin: SITE }, 'email=a@b.c&password=longenough', 'invalid_request', 'Content-Type'],
      ] as const) {
        const res = await signupCall({ headers: { ...headers }, body });
        expect(res.status, body).toBe(400);
        expect(res.json).toMatchObject({ error: code, param });
      }
      for (const method of ['GET', 'PUT', 'DELETE'] as const) {
        const res = await answerOf(await signup[method](request('/api/signup', { method })));
        expect(res.status).toBe(405);
        expect(res.json).toMatchObject({ error: 'method_not_allowed' });
        expect(res.headers.get('allow')).toBe('POST');
      }
    });

    it('next-auth routes answer garbage, wrong content types and methods with a 4xx JSON error, never a 500', async () => {
      for (const [type, body] of [
        ['application/json', '{"csrfToken":'],
        ['application/json', '[{},{}]'],
        ['application/json', '{"csrfToken":{"a":1},"email":"x"}'],
        ['text/plain', 'csrfToken=x'],
      ]) {
        const res = await authCall('/api/auth/callback/credentials', { headers: { 'content-type': type! }, body });
        expect(res.status, body).toBe(400);
        expect(res.json.error).toBe('invalid_request');
      }
      const put = await answerOf(await nextauth.PUT(request('/api/auth/session', { method: 'PUT' }), { params: Promise.resolve({ nextauth: ['session'] }) }));
      expect(put.status).toBe(405);
      expect(put.json).toMatchObject({ error: 'method_not_allowed' });
      for (const segments of [['%ZZ'], ['callback', '%E0%A4%A'], ['..', 'session']]) {
        const res = await answerOf(await nextauth.GET(request(`/api/auth/${segments.join('/')}`), { params: Promise.resolve({ nextauth: segments }) }));
        expect(res.status, segments.join('/')).toBeGreaterThanOrEqual(400);
        expect(res.status, segments.join('/')).toBeLessThan(500);
      }
    });
  });

  describe('sign-up', () => {
    it('goes through the API error envelope: blank, spaced and short passwords, a taken email', async () => {
      const send = (body: unknown) =>
        signupCall({ headers: { 'content-type': 'application/json', origin: SITE, 'x-forwarded-for': nextIp() }, body: JSON.stringify(body) });
      for (const pass of ['', '        ', '\t \t \t \t ', 'short12']) {
        const res = await send({ email: `weak${++n}@example.com`, password: pass });
        expect(res.status).toBe(400);
        expect(res.json).toMatchObject({ error: 'invalid_request', param: 'password' });
        expect(res.json.message).toMatch(pass.trim() ? /at least 8 characters/ : /blank or only spaces/);
      }
      const email = `taken${++n}@example.com`;
      expect((await send({ email, password: 'long enough' })).status).toBe(201);
      const again = await send({ email: email.toUpperCase(), password: 'long enough' });
      expect(again.status).toBe(409);
      expect(again.json).toMatchObject({ error: 'conflict', param: 'email', message: 'An account with this email already exists.' });
      expect((await send({ email: 'not-an-email', password: 'long enough' })).json).toMatchObject({ error: 'invalid_request', param: 'email' });
    });

    it('refuses a cross-site Origin, also when X-Forwarded-Host is spoofed to match it', async () => {
      const body = JSON.stringify({ email: `cross${++n}@example.com`, password: 'long enough' });
      const base = { 'content-type': 'application/json', 'x-forwarded-for': nextIp() };
      process.env.EV_TRUST_PROXY = 'false';
      try {
        const attempts: Record<string, string>[] = [
          { origin: 'https://evil.example' },
          { origin: 'https://evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' },
          { origin: 'https://app.test' }, // our host, another scheme
          { origin: 'null' },
        ];
        for (const headers of attempts) {
          const res = await signupCall({ headers: { ...base, ...headers }, body });
          expect(res.status, JSON.stringify(headers)).toBe(403);
          expect(res.json).toMatchObject({ error: 'forbidden' });
        }
      } finally {
        process.env.EV_TRUST_PROXY = 'true';
      }
      // Behind a trusted proxy, the forwarded host and scheme are the site's.
      const proxied = await signupCall({
        headers: { ...base, origin: 'https://public.example', 'x-forwarded-host': 'public.example', 'x-forwarded-proto': 'https' },
        body,
      });
      expect(proxied.status).toBe(201);
    });

    it('is throttled per client address: 10 an hour, then 429 with Retry-After', async () => {
      const ip = nextIp();
      const send = (i: number) =>
        signupCall({
          headers: { 'content-type': 'application/json', origin: SITE, 'x-forwarded-for': `10.9.9.9, ${ip}` },
          body: JSON.stringify({ email: `burst${n}-${i}@example.com`, password: 'long enough' }),
        });
      for (let i = 0; i < 10; i++) expect((await send(i)).status).toBe(201);
      const refused = await send(10);
      expect(refused.status).toBe(429);
      expect(refused.json).toMatchObject({ error: 'rate_limit' });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3000);
      // Another address (the last X-Forwarded-For hop is the one the proxy saw) is not held back.
      expect(
        (
          await signupCall({
            headers: { 'content-type': 'application/json', origin: SITE, 'x-forwarded-for': `${ip}, ${nextIp()}` },
            body: JSON.stringify({ email: `other${++n}@example.com`, password: 'long enough' }),
          })
        ).status,
      ).toBe(201);
    });

    it('without a trusted proxy, X-Forwarded-For does not open new buckets: all clients share one', async () => {
      process.env.EV_TRUST_PROXY = 'false';
      process.env.EV_SIGNUPS_PER_IP = '2';
      try {
        const statuses = [];
        for (let i = 0; i < 3; i++) {
          const res = await signupCall({
            headers: { 'content-type': 'application/json', origin: SITE, 'x-forwarded-for': nextIp() },
            body: JSON.stringify({ email: `shared${++n}@example.com`, password: 'long enough' }),
          });
          statuses.push(res.status);
        }
        expect(statuses).toEqual([201, 201, 429]);
      } finally {
        process.env.EV_TRUST_PROXY = 'true';
        delete process.env.EV_SIGNUPS_PER_IP;
      }
    });
  });

  describe('sign-in', () => {
    it('signs in with the right password and answers CredentialsSignin for a wrong one', async () => {
      const email = await newUser();
      expect(await signIn(email, 'wrong password', { ip: nextIp() })).toMatchObject({ error: 'CredentialsSignin', session: null });
      const ok = await signIn(email, 'correct horse', { ip: nextIp() });
      expect(ok.error).toBeNull();
      expect(ok.session).toMatch(/^next-auth\.session-token=/);
    });

    it('after 10 failures for an account, refuses even the right password (TooManyAttempts), from any address', async () => {
      const email = await newUser();
      for (let i = 0; i < 10; i++) expect((await signIn(email, `guess ${i}`, { ip: nextIp() })).error).toBe('CredentialsSignin');
      const right = await signIn(email, 'correct horse', { ip: nextIp() });
      expect(right.session).toBeNull();
      expect(right.error).toMatch(/^TooManyAttempts:\d+$/);
      expect(Number(right.error!.split(':')[1])).toBeGreaterThan(800);
      // An unknown email is throttled just the same (the counter is keyed by the email, not the user).
      const ghost = `ghost${++n}@example.com`;
      for (let i = 0; i < 10; i++) await signIn(ghost, `guess ${i}`, { ip: nextIp() });
      expect((await signIn(ghost, 'anything', { ip: nextIp() })).error).toMatch(/^TooManyAttempts:/);
    });

    it('a success takes its attempt back: 9 failures, a success, then 10 more failures are allowed', async () => {
      const email = await newUser();
      for (let i = 0; i < 9; i++) await signIn(email, `guess ${i}`, { ip: nextIp() });
      expect((await signIn(email, 'correct horse', { ip: nextIp() })).error).toBeNull();
      for (let i = 0; i < 10; i++) expect((await signIn(email, `again ${i}`, { ip: nextIp() })).error).toBe('CredentialsSignin');
      expect((await signIn(email, 'correct horse', { ip: nextIp() })).error).toMatch(/^TooManyAttempts:/);
    });

    it('after 50 failures from one address, refuses every account from it, and no other address', async () => {
      const ip = nextIp();
      const email = await newUser();
      for (let i = 0; i < 50; i++) expect((await signIn(`spray${i}-${n}@example.com`, 'password1', { ip })).error).toBe('CredentialsSignin');
      expect((await signIn(email, 'correct horse', { ip })).error).toMatch(/^TooManyAttempts:/);
      expect((await signIn(email, 'correct horse', { ip: nextIp() })).error).toBeNull();
    }, 60_000);

    it('takes as long for an unknown email as for a known one (a dummy scrypt)', async () => {
      const email = await newUser();
      const known: number[] = [];
      const unknown: number[] = [];
      for (let i = 0; i < 6; i++) {
        known.push((await signIn(email, `wrong ${i}`, { ip: nextIp() })).ms);
        unknown.push((await signIn(`nobody${i}-${++n}@example.com`, `wrong ${i}`, { ip: nextIp() })).ms);
      }
      const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
      console.log(`[timing ${dialect}] known email ${median(known).toFixed(1)} ms, unknown email ${median(unknown).toFixed(1)} ms (medians of 6)`);
      expect(median(unknown)).toBeGreaterThanOrEqual(median(known) * 0.5);
      expect(median(known)).toBeGreaterThanOrEqual(median(unknown) * 0.5);
    });
  });

  describe('sessions', () => {
    const withSession = (session: string, extra: Record<string, string> = {}) => ({ cookie: session, origin: SITE, ...extra });

    it('reads the __Secure- session cookie behind TLS without NEXTAUTH_URL', async () => {
      const email = await newUser();
      const tls = await signIn(email, 'correct horse', { ip: nextIp(), site: 'https://app.test' });
      expect(tls.setCookie).toMatch(/^__Secure-next-auth\.session-token=.*; Secure/);
      const res = await v1(account.GET, '/v1/account', { site: 'https://app.test', headers: { cookie: tls.session! } });
      expect(res.status, res.text).toBe(200);
      // A TLS-terminating proxy: the app sees http, the proxy says https (trusted here).
      const proxied = await v1(account.GET, '/v1/account', { headers: { cookie: tls.session!, 'x-forwarded-proto': 'https' } });
      expect(proxied.status).toBe(200);
      // The dashboard's own session endpoint reads it too.
      const viaNextAuth = await authCall('/api/auth/session', { site: 'https://app.test', headers: { cookie: tls.session! } });
      expect(viaNextAuth.json.user.email).toBe(email);
    });

    it('checks the Origin of cookie writes by scheme and host, ignoring a spoofed X-Forwarded-Host', async () => {
      const session = (await signIn(await newUser(), 'correct horse', { ip: nextIp() })).session!;
      const create = (headers: Record<string, string>) =>
        v1(keys.POST, '/v1/keys', { headers: { cookie: session, 'content-type': 'application/json', ...headers }, body: JSON.stringify({ name: 'k' }) });
      expect((await create({ origin: SITE })).status).toBe(201);
      process.env.EV_TRUST_PROXY = 'false';
      try {
        const attempts: Record<string, string>[] = [
          {},
          { origin: 'https://evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' },
          { origin: 'http://evil.example', 'x-forwarded-host': 'evil.example' },
          { origin: 'https://app.test' },
          { origin: 'http://app.test.evil.example' },
        ];
        for (const headers of attempts) {
          const res = await create(headers);
          expect(res.status, JSON.stringify(headers)).toBe(403);
          expect(res.json).toMatchObject({ error: 'forbidden' });
        }
        expect((await create({ origin: SITE, 'x-forwarded-host': 'evil.example' })).status).toBe(201);
      } finally {
        process.env.EV_TRUST_PROXY = 'true';
      }
    });

    it('sign out everywhere ends every session of the account, for /v1 and the dashboard', async () => {
      const email = await newUser();
      const a = (await signIn(email, 'correct horse', { ip: nextIp() })).session!;
      const b = (await signIn(email, 'correct horse', { ip: nextIp() })).session!;
      const other = (await signIn(await newUser(), 'correct horse', { ip: nextIp() })).session!;
      expect((await v1(account.GET, '/v1/account', { headers: { cookie: b } })).status).toBe(200);
      const out = await v1(sessions.DELETE, '/v1/account/sessions', { method: 'DELETE', headers: withSession(a) });
      expect(out.status, out.text).toBe(200);
      for (const session of [a, b]) {
        expect((await v1(account.GET, '/v1/account', { headers: { cookie: session } })).json).toMatchObject({ error: 'authentication_error' });
        const dashboard = await authCall('/api/auth/session', { headers: { cookie: session } });
        expect(dashboard.json).toEqual({});
      }
      expect((await v1(account.GET, '/v1/account', { headers: { cookie: other } })).status).toBe(200);
      // A new sign-in works again.
      const again = (await signIn(email, 'correct horse', { ip: nextIp() })).session!;
      expect((await v1(account.GET, '/v1/account', { headers: { cookie: again } })).status).toBe(200);
    });

    it('a revocation by another server stops a session within seconds', async () => {
      const email = await newUser();
      const session = (await signIn(email, 'correct horse', { ip: nextIp() })).session!;
      expect((await v1(account.GET, '/v1/account', { headers: { cookie: session } })).status).toBe(200);
      // Another process bumps the version: this process only sees the row.
      await ctx.database.prisma.user.update({ where: { email }, data: { sessionVersion: { increment: 1 } } });
      // once this process's cached version has aged out (on a fake clock: the cache's life, not the machine's speed)
      vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
      try {
        vi.setSystemTime(Date.now() + VERSION_CACHE_MS + 1);
        expect((await v1(account.GET, '/v1/account', { headers: { cookie: session } })).status).toBe(401);
      } finally {
        vi.useRealTimers();
      }
    });

    it('a session issued after a revocation this process has not seen yet works at once (no stale cache)', async () => {
      const email = await newUser();
      const session = (await signIn(email, 'correct horse', { ip: nextIp() })).session!;
      expect((await v1(account.GET, '/v1/account', { headers: { cookie: session } })).status).toBe(200); // caches the version
      await ctx.database.prisma.user.update({ where: { email }, data: { sessionVersion: { increment: 1 } } });
      const fresh = (await signIn(email, 'correct horse', { ip: nextIp() })).session!;
      expect((await v1(account.GET, '/v1/account', { headers: { cookie: fresh } })).status).toBe(200);
      expect((await v1(account.GET, '/v1/account', { headers: { cookie: session } })).status).toBe(401);
    });

    it('changing the password needs the current one, keeps this session and signs out the others', async () => {
      const email = await newUser();
      const a = (await signIn(email, 'correct horse', { ip: nextIp() })).session!;
      const b = (await signIn(email, 'correct horse', { ip: nextIp() })).session!;
      const change = (session: string, body: unknown, headers: Record<string, string> = {}) =>
        v1(password.POST, '/v1/account/password', {
          headers: { ...withSession(session), 'content-type': 'application/json', ...headers },
          body: JSON.stringify(body),
        });
      const wrong = await change(a, { current_password: 'not it', new_password: 'battery staple' });
      expect(wrong.status).toBe(400);
      expect(wrong.json).toMatchObject({ error: 'invalid_request', param: 'current_password' });
      const weak = await change(a, { current_password: 'correct horse', new_password: '   ' });
      expect(weak.json).toMatchObject({ error: 'invalid_request', param: 'password' });
      expect((await change(a, { current_password: 'correct horse', new_password: 'battery staple' }, { origin: 'https://evil.example' })).status).toBe(403);
      expect(
        (
          await v1(password.POST, '/v1/account/password', {
            headers: { authorization: `Bearer ${ctx.key}`, 'content-type': 'application/json' },
            body: JSON.stringify({ current_password: 'x', new_password: 'battery staple' }),
          })
        ).status,
      ).toBe(403);

      const done = await change(a, { current_password: 'correct horse', new_password: 'battery staple' });
      expect(done.status, done.text).toBe(200);
      const renewed = done.headers.getSetCookie()[0]!.split(';')[0]!;
      expect(renewed).toMatch(/^next-auth\.session-token=/);
      expect((await v1(account.GET, '/v1/account', { headers: { cookie: renewed } })).status).toBe(200);
      expect((await authCall('/api/auth/session', { headers: { cookie: renewed } })).json.user.email).toBe(email);
      for (const stale of [a, b]) expect((await v1(account.GET, '/v1/account', { headers: { cookie: stale } })).status).toBe(401);
      expect((await signIn(email, 'correct horse', { ip: nextIp() })).error).toBe('CredentialsSignin');
      expect((await signIn(email, 'battery staple', { ip: nextIp() })).error).toBeNull();
    });
  });
});
