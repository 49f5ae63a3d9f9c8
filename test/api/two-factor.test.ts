import { createHmac } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import * as nextauth from '@/app/api/auth/[...nextauth]/route';
import * as twoFactor from '@/app/v1/account/two-factor/route';
import * as confirm from '@/app/v1/account/two-factor/confirm/route';
import * as organisation from '@/app/v1/organisation/route';
import * as organisations from '@/app/v1/organisations/route';
import * as history from '@/app/v1/history/route';
import { createApiKey } from '@/lib/accounts/keys';
import { createAccount } from '@/lib/accounts/users';
import { matchingStep } from '@/lib/auth/two-factor';
import { DIALECTS } from '../databases';
import { answerOf, call, sessionCookie, setup } from './harness';

const SITE = 'http://app.test';
const PASSWORD = 'correct horse battery';
const STEP_MS = 30_000;

/** RFC 6238 written out here (HMAC-SHA-1 of the 30 s step, RFC 4226's dynamic truncation), independent of the server's library. */
function base32Decode(text: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const c of text.replace(/=+$/, '').toUpperCase()) bits += alphabet.indexOf(c).toString(2).padStart(5, '0');
  return Buffer.from(bits.match(/.{8}/g)!.map((b) => parseInt(b, 2)));
}
function hotp(key: Buffer, counter: number, digits = 6): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac('sha1', key).update(message).digest();
  const offset = mac[mac.length - 1]! & 0xf;
  const value = (mac.readUInt32BE(offset) & 0x7fffffff) % 10 ** digits;
  return String(value).padStart(digits, '0');
}
const codeAt = (base32: string, ms: number) => hotp(base32Decode(base32), Math.floor(ms / STEP_MS));

function request(path: string, { method, headers = {}, body }: { method?: string; headers?: Record<string, string>; body?: string }) {
  return new Request(`${SITE}${path}`, { method: method ?? (body === undefined ? 'GET' : 'POST'), headers: { host: new URL(SITE).host, ...headers }, body });
}
async function authCall(path: string, sent: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  const segments = path.split('?')[0]!.split('/').slice(3);
  const handler = (sent.method ?? (sent.body === undefined ? 'GET' : 'POST')) === 'GET' ? nextauth.GET : nextauth.POST;
  return answerOf(await handler(request(path, sent), { params: Promise.resolve({ nextauth: segments }) }));
}

/** The sign-in page's credentials post through next-auth's real route (as test/api/auth.test.ts does). */
async function signIn(email: string, password: string, code: string | undefined, ip: string) {
  const headers = { 'x-forwarded-for': ip };
  const csrf = await authCall('/api/auth/csrf', { headers });
  const jar = csrf.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const form = new URLSearchParams({
    csrfToken: csrf.json.csrfToken,
    email,
    password,
    callbackUrl: `${SITE}/lists`,
    json: 'true',
    ...(code === undefined ? {} : { code }),
  });
  const res = await authCall('/api/auth/callback/credentials', {
    headers: { ...headers, cookie: jar, 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
  });
  const session = res.headers.getSetCookie().find((c) => c.includes('next-auth.session-token='));
  return { error: new URL(res.json.url).searchParams.get('error'), session: session ? session.split(';')[0]! : null };
}

const ORIGIN = { origin: 'http://localhost', host: 'localhost' };

describe('RFC 6238 as the server computes it', () => {
  it("matches the RFC's SHA-1 test vector and the check written out here, for the previous, current and next step only", () => {
    // RFC 6238 appendix B: the ASCII secret "12345678901234567890" at T = 59 s gives 94287082 (8 digits); its last 6 digits are the 6-digit code
    const secret = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
    expect(hotp(base32Decode(secret), 1, 8)).toBe('94287082');
    expect(codeAt(secret, 59_000)).toBe('287082');
    const now = 1_111_111_109_000;
    const step = Math.floor(now / STEP_MS);
    expect(matchingStep(secret, codeAt(secret, now), now)).toBe(step);
    expect(matchingStep(secret, codeAt(secret, now - STEP_MS), now)).toBe(step - 1);
    expect(matchingStep(secret, codeAt(secret, now + STEP_MS), now)).toBe(step + 1);
    expect(matchingStep(secret, codeAt(secret, now - 2 * STEP_MS), now)).toBeNull();
    expect(matchingStep(secret, codeAt(secret, now + 2 * STEP_MS), now)).toBeNull();
  });
});

describe.each(DIALECTS)('two-factor sign-in (%s)', (dialect) => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  let n = 0;
  const nextIp = () => `198.51.100.${++n}`;
  const person = async () => {
    const email = `tf${++n}-${dialect}-${Date.now()}@example.com`;
    const account = await createAccount(ctx.database, email, PASSWORD);
    return { ...account, cookie: () => sessionCookie(ctx.database, account.id) };
  };
  /** Enrols the person through the API; returns the secret and the recovery codes. */
  const enrol = async (who: { cookie: () => Promise<string> }, now = Date.now()) => {
    const started = await call(twoFactor.POST, { key: null, path: '/v1/account/two-factor', headers: { cookie: await who.cookie(), ...ORIGIN }, body: {} });
    expect(started.status, started.text).toBe(200);
    const done = await call(confirm.POST, {
      key: null,
      path: '/v1/account/two-factor/confirm',
      headers: { cookie: await who.cookie(), ...ORIGIN },
      body: { code: codeAt(started.json.secret, now) },
    });
    expect(done.status, done.text).toBe(200);
    return { secret: started.json.secret as string, recovery: done.json.recovery_codes as string[] };
  };

  beforeAll(async () => {
    ctx = await setup(dialect, { EV_TRUST_PROXY: 'true' });
  });
  afterAll(() => ctx?.teardown());
  afterEach(() => {
    vi.useRealTimers();
  });

  it('enrols through the API: a QR code of the otpauth URI, confirmed by a code, ten recovery codes shown once, the secret never answered again nor stored in clear', async () => {
    const who = await person();
    const as = async () => ({ key: null, headers: { cookie: await who.cookie(), ...ORIGIN } });
    expect((await call(twoFactor.GET, { ...(await as()), path: '/v1/account/two-factor' })).json).toMatchObject({
      enabled: false,
      pending: false,
      recovery_codes_left: 0,
      required_by: [],
    });

    const started = await call(twoFactor.POST, { ...(await as()), path: '/v1/account/two-factor', body: {} });
    expect(started.status).toBe(200);
    const secret: string = started.json.secret;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/); // 160 bits
    const uri = new URL(started.json.otpauth_uri);
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.host).toBe('totp');
    expect(Object.fromEntries(uri.searchParams)).toMatchObject({ secret, algorithm: 'SHA1', digits: '6', period: '30' });
    expect(decodeURIComponent(uri.pathname)).toContain(who.email);
    expect(started.json.qr_code).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(Buffer.from(started.json.qr_code.split(',')[1], 'base64').toString()).toMatch(/^<svg[\s\S]*<\/svg>\s*$/);
    expect((await call(twoFactor.GET, { ...(await as()), path: '/v1/account/two-factor' })).json).toMatchObject({ enabled: false, pending: true });
    // pending: password sign-in is not changed yet
    expect((await signIn(who.email, PASSWORD, undefined, nextIp())).error).toBeNull();

    const wrong = await call(confirm.POST, {
      ...(await as()),
      path: '/v1/account/two-factor/confirm',
      body: { code: codeAt(secret, Date.now() + 5 * STEP_MS) },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.json).toMatchObject({ error: 'invalid_request', param: 'code' });
    expect((await call(confirm.POST, { ...(await as()), path: '/v1/account/two-factor/confirm', body: {} })).status).toBe(400);

    const done = await call(confirm.POST, { ...(await as()), path: '/v1/account/two-factor/confirm', body: { code: codeAt(secret, Date.now()) } });
    expect(done.status).toBe(200);
    expect(done.json.recovery_codes).toHaveLength(10);
    expect(new Set(done.json.recovery_codes).size).toBe(10);
    for (const code of done.json.recovery_codes) expect(code).toMatch(/^[a-z2-7]{4}(-[a-z2-7]{4}){3}$/);

    const state = await call(twoFactor.GET, { ...(await as()), path: '/v1/account/two-factor' });
    expect(state.json).toMatchObject({ enabled: true, pending: false, recovery_codes_left: 10 });
    expect(state.text).not.toContain(secret);
    expect((await call(twoFactor.POST, { ...(await as()), path: '/v1/account/two-factor', body: {} })).status).toBe(409);
    expect((await call(confirm.POST, { ...(await as()), path: '/v1/account/two-factor/confirm', body: { code: '123456' } })).status).toBe(409);

    const row = await ctx.database.prisma.user.findUniqueOrThrow({ where: { id: who.id } });
    expect(row.totpSecret).not.toContain(secret);
    expect(row.totpSecret).toMatch(/^v1\./);
    const hashes = await ctx.database.prisma.recoveryCode.findMany({ where: { userId: who.id } });
    expect(hashes).toHaveLength(10);
    for (const { codeHash } of hashes) expect(done.json.recovery_codes.join()).not.toContain(codeHash);

    // an API key, even the owner's, cannot touch it
    const { key } = await createApiKey(ctx.database, who.id, 'k');
    for (const [handler, method] of [
      [twoFactor.GET, 'GET'],
      [twoFactor.POST, 'POST'],
      [twoFactor.DELETE, 'DELETE'],
    ] as const) {
      const byKey = await call(handler, { key, method, path: '/v1/account/two-factor', body: method === 'GET' ? undefined : { current_password: PASSWORD } });
      expect(byKey.status, method).toBe(403);
      expect(byKey.json.error).toBe('forbidden');
    }
  });

  it('signs in with the password and a code: the previous and the next 30 s step accepted once each, a reused or older code refused (fake clock)', async () => {
    const who = await person();
    // the middle of a step, so a step and its neighbours are unambiguous
    const t0 = Math.floor(Date.now() / STEP_MS) * STEP_MS + 15_000;
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(t0);
    const { secret } = await enrol(who, t0);
    // enrolment spent the code of step t0: it cannot sign in
    expect((await signIn(who.email, PASSWORD, codeAt(secret, t0), nextIp())).error).toBe('TwoFactorInvalid');

    vi.setSystemTime(t0 + 2 * STEP_MS);
    const missing = await signIn(who.email, PASSWORD, undefined, nextIp());
    expect(missing).toEqual({ error: 'TwoFactorRequired', session: null });
    expect((await signIn(who.email, PASSWORD, '', nextIp())).error).toBe('TwoFactorRequired');
    // a wrong password with a right code is a wrong password
    expect((await signIn(who.email, 'wrong password', codeAt(secret, t0 + 2 * STEP_MS), nextIp())).error).toBe('CredentialsSignin');

    // the previous window's code (t0 + 1 step), with the spaces an app shows
    const previous = codeAt(secret, t0 + STEP_MS);
    const first = await signIn(who.email, PASSWORD, `${previous.slice(0, 3)} ${previous.slice(3)}`, nextIp());
    expect(first.error).toBeNull();
    expect(first.session).toMatch(/^next-auth\.session-token=/);
    expect(await signIn(who.email, PASSWORD, previous, nextIp())).toEqual({ error: 'TwoFactorInvalid', session: null });
    // two steps back is out of the window
    expect((await signIn(who.email, PASSWORD, codeAt(secret, t0), nextIp())).error).toBe('TwoFactorInvalid');

    // the next window's code (t0 + 3 steps), then the current one is older than it: refused
    const next = codeAt(secret, t0 + 3 * STEP_MS);
    expect((await signIn(who.email, PASSWORD, next, nextIp())).session).not.toBeNull();
    expect((await signIn(who.email, PASSWORD, next, nextIp())).error).toBe('TwoFactorInvalid');
    expect((await signIn(who.email, PASSWORD, codeAt(secret, t0 + 2 * STEP_MS), nextIp())).error).toBe('TwoFactorInvalid');

    // later, the current code works once
    vi.setSystemTime(t0 + 10 * STEP_MS);
    const now = codeAt(secret, t0 + 10 * STEP_MS);
    expect((await signIn(who.email, PASSWORD, now, nextIp())).session).not.toBeNull();
    expect((await signIn(who.email, PASSWORD, now, nextIp())).error).toBe('TwoFactorInvalid');
  });

  it('takes each recovery code once, in any case and with or without dashes', async () => {
    const who = await person();
    const { recovery } = await enrol(who);
    expect((await signIn(who.email, PASSWORD, recovery[0]!, nextIp())).session).not.toBeNull();
    expect((await signIn(who.email, PASSWORD, recovery[0]!, nextIp())).error).toBe('TwoFactorInvalid');
    expect((await signIn(who.email, PASSWORD, recovery[1]!.replaceAll('-', '').toUpperCase(), nextIp())).session).not.toBeNull();
    expect((await signIn(who.email, PASSWORD, recovery[1]!, nextIp())).error).toBe('TwoFactorInvalid');
    expect((await signIn(who.email, PASSWORD, 'aaaa-bbbb-cccc-dddd', nextIp())).error).toBe('TwoFactorInvalid');
    const state = await call(twoFactor.GET, { key: null, path: '/v1/account/two-factor', headers: { cookie: await who.cookie() } });
    expect(state.json.recovery_codes_left).toBe(8);
    // another person's recovery code is not this person's
    const other = await person();
    const theirs = await enrol(other);
    expect((await signIn(who.email, PASSWORD, theirs.recovery[0]!, nextIp())).error).toBe('TwoFactorInvalid');
  });

  it('counts a wrong code like a wrong password, per account: the password alone does not reset the count', async () => {
    const who = await person();
    const { secret, recovery } = await enrol(who);
    for (let i = 0; i < 9; i++) expect((await signIn(who.email, PASSWORD, String(100000 + i), nextIp())).error).toBe('TwoFactorInvalid');
    // the right password without a code takes its own attempt back, and no more
    expect((await signIn(who.email, PASSWORD, undefined, nextIp())).error).toBe('TwoFactorRequired');
    expect((await signIn(who.email, PASSWORD, 'zzzz-zzzz-zzzz-zzzz', nextIp())).error).toBe('TwoFactorInvalid');
    const refused = await signIn(who.email, PASSWORD, codeAt(secret, Date.now() + STEP_MS), nextIp());
    expect(refused.session).toBeNull();
    expect(refused.error).toMatch(/^TooManyAttempts:\d+$/);
    expect((await signIn(who.email, PASSWORD, recovery[0]!, nextIp())).error).toMatch(/^TooManyAttempts:/);
  });

  it('counts a wrong code per client address too', async () => {
    process.env.EV_LOGIN_MAX_FAILURES_PER_IP = '3';
    try {
      const who = await person();
      const { recovery } = await enrol(who);
      const ip = nextIp();
      for (let i = 0; i < 3; i++) expect((await signIn(who.email, PASSWORD, `wrong-code-${i}`, ip)).error).toBe('TwoFactorInvalid');
      expect((await signIn(who.email, PASSWORD, recovery[0]!, ip)).error).toMatch(/^TooManyAttempts:/);
      expect((await signIn(who.email, PASSWORD, recovery[0]!, nextIp())).session).not.toBeNull();
    } finally {
      delete process.env.EV_LOGIN_MAX_FAILURES_PER_IP;
    }
  });

  it("lets an owner require it: a member's session without two-factor is refused but may enrol or switch; with it, admitted; keys unaffected", async () => {
    const owner = await person();
    const member = await person();
    await ctx.database.prisma.membership.create({ data: { orgId: owner.id, userId: member.id, role: 'member' } });
    const ownerSession = async () => ({ key: null, headers: { cookie: await sessionCookie(ctx.database, owner.id, owner.id), ...ORIGIN } });
    const memberSession = async () => ({ key: null, headers: { cookie: await sessionCookie(ctx.database, member.id, owner.id), ...ORIGIN } });

    const early = await call(organisation.PATCH, { ...(await ownerSession()), method: 'PATCH', path: '/v1/organisation', body: { require_two_factor: true } });
    expect(early.status).toBe(409);
    expect(early.json.error).toBe('conflict');
    expect((await call(organisation.PATCH, { ...(await ownerSession()), method: 'PATCH', path: '/v1/organisation', body: {} })).status).toBe(400);
    const { secret: ownerSecret } = await enrol({ cookie: () => sessionCookie(ctx.database, owner.id) });
    const required = await call(organisation.PATCH, {
      ...(await ownerSession()),
      method: 'PATCH',
      path: '/v1/organisation',
      body: { require_two_factor: true },
    });
    expect(required.status).toBe(200);
    expect(required.json).toMatchObject({ id: owner.id, require_two_factor: true });
    // renaming keeps the requirement
    expect(
      (await call(organisation.PATCH, { ...(await ownerSession()), method: 'PATCH', path: '/v1/organisation', body: { name: 'Strict' } })).json,
    ).toMatchObject({ name: 'Strict', require_two_factor: true });

    const refused = await call(history.GET, { ...(await memberSession()), path: '/v1/history' });
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({ error: 'two_factor_required' });
    // the same person in their own organisation is not held to it
    expect(
      (await call(history.GET, { key: null, path: '/v1/history', headers: { cookie: await sessionCookie(ctx.database, member.id, member.id) } })).status,
    ).toBe(200);
    // the owner (with two-factor) and a key are admitted
    expect((await call(history.GET, { ...(await ownerSession()), path: '/v1/history' })).status).toBe(200);
    const { key } = await createApiKey(ctx.database, owner.id, 'k');
    expect((await call(history.GET, { key, path: '/v1/history' })).status).toBe(200);

    const orgs = await call(organisations.GET, { ...(await memberSession()), path: '/v1/organisations' });
    expect(orgs.status).toBe(200);
    const state = await call(twoFactor.GET, { ...(await memberSession()), path: '/v1/account/two-factor' });
    expect(state.json).toMatchObject({ enabled: false, required_by: [{ id: owner.id, name: 'Strict' }] });
    const { recovery } = await enrol({ cookie: () => sessionCookie(ctx.database, member.id, owner.id) });
    expect((await call(history.GET, { ...(await memberSession()), path: '/v1/history' })).status).toBe(200);

    // it stays on while the organisation requires it
    const stuck = await call(twoFactor.DELETE, { ...(await memberSession()), method: 'DELETE', path: '/v1/account/two-factor', body: { code: recovery[0] } });
    expect(stuck.status).toBe(409);
    expect(stuck.json.message).toContain('Strict');
    // and the recovery code offered was not spent on the refusal
    expect((await call(twoFactor.GET, { ...(await memberSession()), path: '/v1/account/two-factor' })).json.recovery_codes_left).toBe(10);

    // the owner lifts the requirement; the member turns it off with a recovery code, the owner with the password
    expect(
      (await call(organisation.PATCH, { ...(await ownerSession()), method: 'PATCH', path: '/v1/organisation', body: { require_two_factor: false } })).json
        .require_two_factor,
    ).toBe(false);
    const wrongPassword = await call(twoFactor.DELETE, {
      ...(await ownerSession()),
      method: 'DELETE',
      path: '/v1/account/two-factor',
      body: { current_password: 'nope' },
    });
    expect(wrongPassword.json).toMatchObject({ error: 'invalid_request', param: 'current_password' });
    expect((await call(twoFactor.DELETE, { ...(await memberSession()), method: 'DELETE', path: '/v1/account/two-factor', body: {} })).status).toBe(400);
    expect(
      (await call(twoFactor.DELETE, { ...(await memberSession()), method: 'DELETE', path: '/v1/account/two-factor', body: { code: recovery[0] } })).json,
    ).toMatchObject({ enabled: false });
    expect(
      (await call(twoFactor.DELETE, { ...(await ownerSession()), method: 'DELETE', path: '/v1/account/two-factor', body: { current_password: PASSWORD } }))
        .json,
    ).toMatchObject({ enabled: false });
    expect(await ctx.database.prisma.recoveryCode.count({ where: { userId: member.id } })).toBe(0);
    expect((await ctx.database.prisma.user.findUniqueOrThrow({ where: { id: owner.id } })).totpSecret).toBeNull();
    // off again: the password alone signs in, the old code is no factor any more
    expect((await signIn(owner.email, PASSWORD, undefined, nextIp())).session).not.toBeNull();
    expect(
      (
        await call(twoFactor.DELETE, {
          ...(await ownerSession()),
          method: 'DELETE',
          path: '/v1/account/two-factor',
          body: { code: codeAt(ownerSecret, Date.now()) },
        })
      ).status,
    ).toBe(409);
  });
});
