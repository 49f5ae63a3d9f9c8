import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';
import * as nextauth from '@/app/api/auth/[...nextauth]/route';
import * as invitations from '@/app/v1/invitations/route';
import * as invitation from '@/app/v1/invitations/[id]/route';
import * as accept from '@/app/v1/invitations/accept/route';
import * as lookup from '@/app/api/invitations/lookup/route';
import * as join from '@/app/api/invitations/join/route';
import * as organisations from '@/app/v1/organisations/route';
import * as members from '@/app/v1/members/route';
import * as keys from '@/app/v1/keys/route';
import { ensureAccount } from '@/lib/accounts/users';
import { createApiKey } from '@/lib/accounts/keys';
import type { Role } from '@/lib/accounts/roles';
import { DIALECTS } from '../databases';
import { testCertificate } from '../peers/scripted-smtp';
import { answerOf, call, sessionCookie, setup } from './harness';

const ORIGIN = { origin: 'http://localhost', host: 'localhost' };
const INVALID = 'This invitation link is no longer valid';

interface Received {
  to: string[];
  secure: boolean;
  user: unknown;
  raw: string;
}

/**
 * A local relay with STARTTLS (the fixture certificate for mx.tls.test) that takes mail only from
 * an authenticated client, and (smtp-server's default) offers AUTH only once TLS is up.
 */
async function startRelay() {
  const received: Received[] = [];
  const server = new SMTPServer({
    secure: false,
    ...testCertificate(),
    logger: false,
    authMethods: ['PLAIN', 'LOGIN'],
    onAuth(auth, _session, done) {
      if (auth.username === 'inviter' && auth.password === 's3cret/pass') done(null, { user: 'inviter' });
      else done(new Error('Invalid username or password'));
    },
    onData(stream, session, done) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({
          to: session.envelope.rcptTo.map((r) => r.address),
          secure: session.secure,
          user: session.user,
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        done();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  // the client checks the relay's certificate against the fixture's (self-signed) one, by its name
  const tls = `requireTLS=true&tls.servername=mx.tls.test&tls.ca=${encodeURIComponent(testCertificate().cert.toString())}`;
  return {
    received,
    url: (password = 's3cret%2Fpass') => `smtp://inviter:${password}@127.0.0.1:${port}/?${tls}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The text of a received mail's body, undoing its transfer encoding. */
function bodyText(raw: string): string {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split);
  const body = raw.slice(split + 4);
  const encoding = /^content-transfer-encoding:\s*(\S+)/im.exec(head)?.[1]?.toLowerCase();
  if (encoding === 'base64') return Buffer.from(body, 'base64').toString('utf8');
  if (encoding === 'quoted-printable') return body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
  return body;
}

const tokenOf = (link: string) => new URL(link).searchParams.get('token')!;

function publicCall(route: { POST: (r: Request) => Promise<Response> }, path: string, body: unknown) {
  return route
    .POST(new Request(`http://localhost${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...ORIGIN }, body: JSON.stringify(body) }))
    .then(answerOf);
}

/** The dashboard's sign-in through next-auth's real route (as the join page does): the session cookie. */
async function signIn(email: string, password: string): Promise<string> {
  const auth = (path: string, init: RequestInit = {}) => {
    const handler = init.method === 'POST' ? nextauth.POST : nextauth.GET;
    return handler(new Request(`http://localhost${path}`, { ...init, headers: { host: 'localhost', ...(init.headers as Record<string, string>) } }), {
      params: Promise.resolve({ nextauth: path.split('?')[0]!.split('/').slice(3) }),
    }).then(answerOf);
  };
  const csrf = await auth('/api/auth/csrf');
  const jar = csrf.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const form = new URLSearchParams({ csrfToken: csrf.json.csrfToken, email, password, callbackUrl: 'http://localhost/lists', json: 'true' });
  const res = await auth('/api/auth/callback/credentials', {
    method: 'POST',
    headers: { cookie: jar, 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
  });
  const cookie = res.headers.getSetCookie().find((c) => c.includes('next-auth.session-token='));
  expect(cookie, `sign-in of ${email}`).toBeTruthy();
  return cookie!.split(';')[0]!;
}

describe.each(DIALECTS)('invitations (%s)', (dialect) => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  let relay: Awaited<ReturnType<typeof startRelay>>;
  let n = 0;
  const address = (what: string) => `${what}-${dialect}-${++n}@example.com`;
  const owner = () => sessionCookie(ctx.database, ctx.account.id, ctx.account.id);
  const as = async (cookie: string | Promise<string>) => ({ key: null, headers: { cookie: await cookie, ...ORIGIN } });
  /** A person of the organisation with `role`, and their session acting in it. */
  const person = async (role: Role) => {
    const user = await ensureAccount(ctx.database, address(role));
    await ctx.database.prisma.membership.create({ data: { orgId: ctx.account.id, userId: user.id, role } });
    return { ...user, cookie: () => sessionCookie(ctx.database, user.id, ctx.account.id) };
  };
  const invite = async (body: { email: string; role: string }, cookie: string | Promise<string> = owner()) =>
    call(invitations.POST, { ...(await as(cookie)), path: '/v1/invitations', body });

  beforeAll(async () => {
    ctx = await setup(dialect, { EV_SIGNUPS_PER_IP: '1000', EV_CREATE_RATE_PER_MINUTE: '10000', EV_SMTP_URL: '', EV_INVITATION_FROM: 'team@verifier.test' });
    await ctx.database.prisma.user.update({ where: { id: ctx.account.id }, data: { orgName: 'Acme marketing' } });
    relay = await startRelay();
  });
  // the one line each invitation made without a relay logs (asserted where it matters)
  beforeEach(() => void vi.spyOn(console, 'info').mockImplementation(() => {}));
  afterEach(() => {
    process.env.EV_SMTP_URL = '';
    vi.restoreAllMocks();
  });
  afterAll(async () => {
    await relay?.close();
    await ctx?.teardown();
  });

  it('mails the link through the relay (STARTTLS, AUTH); a new person joins with it and acts with the invited role', async () => {
    process.env.EV_SMTP_URL = relay.url();
    const email = address('newcomer');
    const created = await invite({ email: email.toUpperCase(), role: 'member' });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ email, role: 'member', mailed: true, link: null, invited_by: { user_id: ctx.account.id, email: ctx.account.email } });
    expect(created.json.mail_error).toBeUndefined();

    const mail = relay.received.find((m) => m.to.includes(email))!;
    expect(mail, 'the relay received the invitation').toBeTruthy();
    expect(mail.secure, 'sent after STARTTLS').toBe(true);
    expect(mail.user).toBe('inviter');
    expect(mail.raw).toMatch(/^From: team@verifier\.test/m);
    expect(mail.raw).toMatch(/^Subject: You are invited to join Acme marketing/m);
    const text = bodyText(mail.raw);
    expect(text).toContain('as a member');
    const link = /http:\/\/localhost\/join\?token=[A-Za-z0-9_-]{43}/.exec(text)?.[0];
    expect(link, text).toBeTruthy();
    // only the hash is stored
    const row = await ctx.database.prisma.invitation.findUnique({ where: { id: created.json.id } });
    expect(row!.tokenHash).not.toContain(tokenOf(link!));
    expect(row!.expiresAt.getTime() - row!.createdAt.getTime()).toBe(7 * 24 * 3600_000);

    const seen = await publicCall(lookup, '/api/invitations/lookup', { token: tokenOf(link!) });
    expect(seen.status).toBe(200);
    expect(seen.json).toEqual({ organisation_name: 'Acme marketing', email, role: 'member', expires_at: row!.expiresAt.toISOString(), account_exists: false });

    const weak = await publicCall(join, '/api/invitations/join', { token: tokenOf(link!), password: 'short' });
    expect(weak.status).toBe(400);
    expect(weak.json).toMatchObject({ error: 'invalid_request', param: 'password' });
    expect(await ctx.database.prisma.user.count({ where: { email } })).toBe(0);

    const joined = await publicCall(join, '/api/invitations/join', { token: tokenOf(link!), password: 'a long password' });
    expect(joined.status).toBe(201);
    expect(joined.json).toEqual({ email, organisation: { id: ctx.account.id, name: 'Acme marketing', role: 'member' } });

    // as the join page does: sign in with next-auth, then act in the organisation (the ev-org cookie)
    const session = `${await signIn(email, 'a long password')}; ev-org=${ctx.account.id}`;
    const orgs = await call(organisations.GET, { key: null, path: '/v1/organisations', headers: { cookie: session } });
    expect(orgs.json.current).toBe(ctx.account.id);
    expect(orgs.json.data).toContainEqual({ id: ctx.account.id, name: 'Acme marketing', role: 'member' });
    const listed = await call(members.GET, { key: null, path: '/v1/members', headers: { cookie: session } });
    expect(listed.json.data.find((m: any) => m.email === email)).toMatchObject({ role: 'member' });
    const adminOnly = await call(keys.GET, { key: null, path: '/v1/keys', headers: { cookie: session } });
    expect(adminOnly.json).toMatchObject({ error: 'insufficient_role', role: 'admin' });

    // used: the link is refused everywhere with the one answer
    for (const again of [
      await publicCall(lookup, '/api/invitations/lookup', { token: tokenOf(link!) }),
      await publicCall(join, '/api/invitations/join', { token: tokenOf(link!), password: 'another long one' }),
    ]) {
      expect(again.status).toBe(404);
      expect(again.json.message).toContain(INVALID);
    }
    const list = await call(invitations.GET, { ...(await as(owner())), path: '/v1/invitations' });
    expect(list.json.data.find((i: any) => i.id === created.json.id)).toMatchObject({ state: 'accepted', email });
  });

  it('with no relay answers the link and logs it; an existing person accepts signed in as the invited address', async () => {
    const info = vi.spyOn(console, 'info');
    const invitee = await ensureAccount(ctx.database, address('existing'));
    const created = await invite({ email: `  ${invitee.email.replace(/^e/, 'E')} `, role: 'viewer' });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ email: invitee.email, role: 'viewer', mailed: false });
    const link: string = created.json.link;
    expect(link).toMatch(/^http:\/\/localhost\/join\?token=[A-Za-z0-9_-]{43}$/);
    expect(info).toHaveBeenCalledTimes(1);
    expect(String(info.mock.calls[0]![0])).toContain(link);

    expect((await publicCall(lookup, '/api/invitations/lookup', { token: tokenOf(link) })).json).toMatchObject({ account_exists: true, role: 'viewer' });
    // an account exists: the page signs in and accepts instead of joining
    const join409 = await publicCall(join, '/api/invitations/join', { token: tokenOf(link), password: 'a long password' });
    expect(join409.status).toBe(409);

    const someoneElse = await ensureAccount(ctx.database, address('other'));
    const wrong = await call(accept.POST, {
      ...(await as(sessionCookie(ctx.database, someoneElse.id))),
      path: '/v1/invitations/accept',
      body: { token: tokenOf(link) },
    });
    expect(wrong.status).toBe(403);
    expect(wrong.json).toMatchObject({ error: 'forbidden' });
    expect(wrong.json.message).toContain(invitee.email);
    const { key } = await createApiKey(ctx.database, invitee.id, 'invitee key');
    expect((await call(accept.POST, { key, path: '/v1/invitations/accept', body: { token: tokenOf(link) } })).status).toBe(403);

    const accepted = await call(accept.POST, {
      ...(await as(sessionCookie(ctx.database, invitee.id))),
      path: '/v1/invitations/accept',
      body: { token: tokenOf(link) },
    });
    expect(accepted.status).toBe(200);
    expect(accepted.json).toEqual({ success: true, organisation: { id: ctx.account.id, name: 'Acme marketing', role: 'viewer' } });
    const membership = await ctx.database.prisma.membership.findUnique({ where: { orgId_userId: { orgId: ctx.account.id, userId: invitee.id } } });
    expect(membership?.role).toBe('viewer');
    const acting = await call(organisations.GET, {
      key: null,
      path: '/v1/organisations',
      headers: { cookie: await sessionCookie(ctx.database, invitee.id, ctx.account.id) },
    });
    expect(acting.json.current).toBe(ctx.account.id);

    const reused = await call(accept.POST, {
      ...(await as(sessionCookie(ctx.database, invitee.id))),
      path: '/v1/invitations/accept',
      body: { token: tokenOf(link) },
    });
    expect(reused.status).toBe(404);
    expect(reused.json.message).toContain(INVALID);
  });

  it('refuses expired, revoked, used and unknown links with the same 404', async () => {
    const answers: unknown[] = [];
    /** lookup, accept (signed in as the invited address) and join all refuse `token` */
    const refused = async (token: string, email: string) => {
      const looked = await publicCall(lookup, '/api/invitations/lookup', { token });
      expect(looked.status).toBe(404);
      answers.push(looked.json);
      const invitee = await ensureAccount(ctx.database, email);
      const accepted = await call(accept.POST, { ...(await as(sessionCookie(ctx.database, invitee.id))), path: '/v1/invitations/accept', body: { token } });
      expect(accepted.status).toBe(404);
      answers.push(accepted.json);
      const joined = await publicCall(join, '/api/invitations/join', { token, password: 'a long password' });
      expect(joined.status).toBe(404);
      answers.push(joined.json);
    };

    const expired = await invite({ email: address('late'), role: 'member' });
    await ctx.database.prisma.invitation.update({ where: { id: expired.json.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await refused(tokenOf(expired.json.link), expired.json.email);

    const revoked = await invite({ email: address('revoked'), role: 'member' });
    const revoke = await call(invitation.DELETE, {
      ...(await as(owner())),
      method: 'DELETE',
      path: `/v1/invitations/${revoked.json.id}`,
      params: { id: revoked.json.id },
    });
    expect(revoke.status).toBe(200);
    expect(revoke.json).toEqual({ success: true, id: revoked.json.id, revoked: true });
    await refused(tokenOf(revoked.json.link), revoked.json.email);
    const again = await call(invitation.DELETE, {
      ...(await as(owner())),
      method: 'DELETE',
      path: `/v1/invitations/${revoked.json.id}`,
      params: { id: revoked.json.id },
    });
    expect(again.status).toBe(404);

    await refused('x'.repeat(43), ctx.account.email);
    // one answer for all: nothing tells a spent link from one that never was
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);

    const list = await call(invitations.GET, { ...(await as(owner())), path: '/v1/invitations' });
    const states = Object.fromEntries(list.json.data.map((i: any) => [i.id, i.state]));
    expect(states[expired.json.id]).toBe('expired');
    expect(states[revoked.json.id]).toBe('revoked');
    // an expired invitation no longer blocks a new one to the same address
    expect((await invite({ email: expired.json.email, role: 'member' })).status).toBe(201);
  });

  it('lets two accepts of one link at once make one membership, and two joins one account', async () => {
    const invitee = await ensureAccount(ctx.database, address('twice'));
    const created = await invite({ email: invitee.email, role: 'member' });
    const cookie = await sessionCookie(ctx.database, invitee.id);
    const both = await Promise.all(
      [0, 1].map(() =>
        call(accept.POST, { key: null, headers: { cookie, ...ORIGIN }, path: '/v1/invitations/accept', body: { token: tokenOf(created.json.link) } }),
      ),
    );
    expect(both.map((a) => a.status).sort()).toEqual([200, 404]);
    expect(await ctx.database.prisma.membership.count({ where: { orgId: ctx.account.id, userId: invitee.id } })).toBe(1);
    expect((await ctx.database.prisma.invitation.findUnique({ where: { id: created.json.id } }))!.acceptedBy).toBe(invitee.id);

    const email = address('racer');
    const fresh = await invite({ email, role: 'viewer' });
    const joins = await Promise.all(
      [0, 1].map(() => publicCall(join, '/api/invitations/join', { token: tokenOf(fresh.json.link), password: 'a long password' })),
    );
    expect(joins.map((a) => a.status).filter((s) => s === 201)).toHaveLength(1);
    expect(
      joins
        .map((a) => a.status)
        .filter((s) => s !== 201)
        .every((s) => s === 404 || s === 409),
    ).toBe(true);
    const users = await ctx.database.prisma.user.findMany({ where: { email } });
    expect(users).toHaveLength(1);
    // the one account has its own organisation and the invited membership, nothing else
    expect(
      (await ctx.database.prisma.membership.findMany({ where: { userId: users[0]!.id }, orderBy: { role: 'asc' } })).map((m) => [m.orgId, m.role]),
    ).toEqual([
      [users[0]!.id, 'owner'],
      [ctx.account.id, 'viewer'],
    ]);
  });

  it('lets admins invite members and viewers only, and refuses members, pending addresses and bad input', async () => {
    const admin = await person('admin');
    const high = await invite({ email: address('would-be-admin'), role: 'admin' }, admin.cookie());
    expect(high.status).toBe(403);
    expect(high.json).toMatchObject({ error: 'insufficient_role', role: 'owner' });
    const byOwner = await invite({ email: address('real-admin'), role: 'admin' });
    expect(byOwner.status).toBe(201);
    // an admin cannot revoke an owner's invitation of an admin either
    const revoke = await call(invitation.DELETE, {
      ...(await as(admin.cookie())),
      method: 'DELETE',
      path: `/v1/invitations/${byOwner.json.id}`,
      params: { id: byOwner.json.id },
    });
    expect(revoke.json).toMatchObject({ error: 'insufficient_role', role: 'owner' });

    const ok = await invite({ email: address('by-admin'), role: 'viewer' }, admin.cookie());
    expect(ok.status).toBe(201);
    expect(ok.json.invited_by).toEqual({ user_id: admin.id, email: admin.email });
    const pending = await invite({ email: ok.json.email, role: 'member' }, admin.cookie());
    expect(pending.status).toBe(409);
    expect(pending.json).toMatchObject({ error: 'conflict', param: 'email' });

    const member = await person('member');
    const already = await invite({ email: member.email, role: 'viewer' });
    expect(already.status).toBe(409);
    expect(already.json.message).toContain('already a member');
    const byMember = await invite({ email: address('nope'), role: 'viewer' }, member.cookie());
    expect(byMember.json).toMatchObject({ error: 'insufficient_role', role: 'admin' });

    expect((await invite({ email: 'not an address', role: 'viewer' })).json).toMatchObject({ error: 'invalid_request', param: 'email' });
    expect((await invite({ email: address('x'), role: 'boss' })).status).toBe(400);
    const other = await call(invitation.DELETE, { ...(await as(owner())), method: 'DELETE', path: '/v1/invitations/inv_none', params: { id: 'inv_none' } });
    expect(other.status).toBe(404);
  });

  it('still makes the invitation when the relay refuses, and answers the link with the reason', async () => {
    process.env.EV_SMTP_URL = relay.url('wrong');
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const email = address('unmailed');
    const created = await invite({ email, role: 'member' });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ email, mailed: false });
    expect(created.json.link).toMatch(/\/join\?token=/);
    expect(created.json.mail_error).toContain('Invalid username or password');
    expect(created.json.mail_error).not.toContain('wrong');
    expect(warn).toHaveBeenCalled();
    expect(relay.received.some((m) => m.to.includes(email))).toBe(false);
    expect((await publicCall(lookup, '/api/invitations/lookup', { token: tokenOf(created.json.link) })).status).toBe(200);
  });

  it('speaks TLS from the first byte with smtps://, and with ?requireTLS=true refuses a relay that offers no STARTTLS', async () => {
    const tlsOnly = { secure: true, ...testCertificate(), logger: false, authOptional: true };
    const plainOnly = { secure: false, disabledCommands: ['STARTTLS'], logger: false, authOptional: true };
    const got: { to: string; secure: boolean }[] = [];
    const servers = [tlsOnly, plainOnly].map(
      (options) =>
        new SMTPServer({
          ...options,
          onData(stream, session, done) {
            stream.resume();
            stream.on('end', () => {
              got.push({ to: session.envelope.rcptTo[0]!.address, secure: session.secure });
              done();
            });
          },
        }),
    );
    const ports = await Promise.all(
      servers.map((server) => new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.server.address() as AddressInfo).port)))),
    );
    try {
      const ca = `tls.servername=mx.tls.test&tls.ca=${encodeURIComponent(testCertificate().cert.toString())}`;
      process.env.EV_SMTP_URL = `smtps://127.0.0.1:${ports[0]}/?${ca}`;
      const implicit = await invite({ email: address('implicit-tls'), role: 'viewer' });
      expect(implicit.json).toMatchObject({ mailed: true, link: null });
      expect(got).toEqual([{ to: implicit.json.email, secure: true }]);

      vi.spyOn(console, 'warn').mockImplementation(() => {});
      process.env.EV_SMTP_URL = `smtp://127.0.0.1:${ports[1]}/?requireTLS=true&${ca}`;
      const refused = await invite({ email: address('no-starttls'), role: 'viewer' });
      expect(refused.json).toMatchObject({ mailed: false });
      expect(refused.json.mail_error).toMatch(/STARTTLS/i);
      expect(got).toHaveLength(1);
    } finally {
      await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
    }
  });

  it('guards the public routes as sign-up is guarded', async () => {
    const crossSite = await lookup
      .POST(
        new Request('http://localhost/api/invitations/lookup', {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin: 'https://evil.example', host: 'localhost' },
          body: '{"token":"x"}',
        }),
      )
      .then(answerOf);
    expect(crossSite.status).toBe(403);
    const form = await join
      .POST(
        new Request('http://localhost/api/invitations/join', {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', host: 'localhost' },
          body: 'token=x&password=y',
        }),
      )
      .then(answerOf);
    expect(form.status).toBe(400);
    const big = await join
      .POST(
        new Request('http://localhost/api/invitations/join', {
          method: 'POST',
          headers: { 'content-type': 'application/json', host: 'localhost' },
          body: JSON.stringify({ token: 'x', password: 'p'.repeat(20_000) }),
        }),
      )
      .then(answerOf);
    expect(big.status).toBe(413);
    expect((await answerOf(await lookup.GET(new Request('http://localhost/api/invitations/lookup')))).status).toBe(405);

    // refused look-ups count per client address, as failed sign-ins do; a good link does not count
    Object.assign(process.env, { EV_TRUST_PROXY: '1', EV_LOGIN_MAX_FAILURES_PER_IP: '2' });
    try {
      const good = await invite({ email: address('throttled'), role: 'viewer' });
      const from = (ip: string, token: string) =>
        lookup
          .POST(
            new Request('http://localhost/api/invitations/lookup', {
              method: 'POST',
              headers: { 'content-type': 'application/json', host: 'localhost', 'x-forwarded-for': ip },
              body: JSON.stringify({ token }),
            }),
          )
          .then(answerOf);
      const ip = `198.51.100.${n}`;
      for (let i = 0; i < 3; i++) expect((await from(ip, tokenOf(good.json.link))).status).toBe(200);
      expect((await from(ip, 'made-up-1')).status).toBe(404);
      expect((await from(ip, 'made-up-2')).status).toBe(404);
      const throttled = await from(ip, tokenOf(good.json.link));
      expect(throttled.status).toBe(429);
      expect(throttled.headers.get('retry-after')).toMatch(/^\d+$/);
      expect((await from(`198.51.100.${n + 100}`, tokenOf(good.json.link))).status).toBe(200);
    } finally {
      delete process.env.EV_TRUST_PROXY;
      delete process.env.EV_LOGIN_MAX_FAILURES_PER_IP;
    }
  });
});
