import { createHmac } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import Papa from 'papaparse';
import * as nextauth from '@/app/api/auth/[...nextauth]/route';
import * as audit from '@/app/v1/audit/route';
import * as keys from '@/app/v1/keys/route';
import * as key from '@/app/v1/keys/[id]/route';
import * as webhooks from '@/app/v1/webhooks/route';
import * as webhook from '@/app/v1/webhooks/[id]/route';
import * as rules from '@/app/v1/rules/route';
import * as rule from '@/app/v1/rules/[id]/route';
import * as ruleImport from '@/app/v1/rules/import/route';
import * as bulk from '@/app/v1/verify/bulk/route';
import * as job from '@/app/v1/verify/bulk/[jobId]/route';
import * as download from '@/app/v1/verify/bulk/download/[jobId]/route';
import * as quota from '@/app/v1/account/quota/route';
import * as retention from '@/app/v1/account/retention/route';
import * as reuse from '@/app/v1/account/reuse/route';
import * as organisation from '@/app/v1/organisation/route';
import * as member from '@/app/v1/members/[userId]/route';
import * as leave from '@/app/v1/members/me/route';
import * as addresses from '@/app/v1/addresses/[email]/route';
import * as invitations from '@/app/v1/invitations/route';
import * as accept from '@/app/v1/invitations/accept/route';
import * as joinPage from '@/app/api/invitations/join/route';
import * as twoFactor from '@/app/v1/account/two-factor/route';
import * as twoFactorConfirm from '@/app/v1/account/two-factor/confirm/route';
import { createAccount, ensureAccount } from '@/lib/accounts/users';
import { OPERATIONS } from '@/lib/api/operations';
import { AUDIT_ACTIONS } from '@/lib/audit/actions';
import { retentionPass } from '@/lib/retention/sweep';
import { DIALECTS } from '../databases';
import { answerOf, call as callRoute, sessionCookie, setup } from './harness';
import { ROUTE_MODULES } from './contract';
import { scriptArgs } from '../scripts';

/** `call` with the request's path filled in from the route's own (the role check reads it: lib/api/key-access.ts). */
const call: typeof callRoute = (handler, options = {}) => {
  if (options.path) return callRoute(handler, options);
  const template = Object.entries(ROUTE_MODULES).find(([, module]) => Object.values(module).includes(handler))![0];
  return callRoute(handler, { ...options, path: template.replace(/\{(\w+)\}/g, (_, name: string) => options.params?.[name] ?? '') });
};

const ORIGIN = { origin: 'http://localhost', host: 'localhost' };
const FROM = '198.51.100.7';
const DAY_MS = 86_400_000;

describe.each(DIALECTS)('the audit log (%s)', (dialect) => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  let org: string;
  let elsewhereOrg = '';
  /** people of the organisation: the owner (its own account), an admin, a viewer */
  const people = {} as Record<'owner' | 'admin' | 'viewer', { id: string; email: string }>;
  let n = 0;

  const person = async (role: 'admin' | 'viewer' | 'member', password?: string) => {
    const email = `${role}-${dialect}-${n++}-${Date.now()}@example.com`;
    const user = password ? await createAccount(ctx.database, email, password) : await ensureAccount(ctx.database, email);
    await ctx.database.prisma.membership.create({ data: { orgId: org, userId: user.id, role } });
    return { id: user.id, email: user.email };
  };
  /** `call` credentials: a person's dashboard session in the organisation, from FROM */
  const session = async (who: { id: string }) => ({
    key: null,
    headers: { cookie: await sessionCookie(ctx.database, who.id, org), ...ORIGIN, 'x-forwarded-for': FROM },
  });
  const byKey = (k: string) => ({ key: k, headers: { 'x-forwarded-for': FROM } });
  const rows = (action: string, orgId: string | null = org) =>
    ctx.database.prisma.auditEvent.findMany({ where: { orgId, action }, orderBy: [{ at: 'asc' }, { id: 'asc' }] });
  const total = () => ctx.database.prisma.auditEvent.count();
  /** The action is refused as `status` and writes no audit row at all. */
  const refusedWithoutRow = async (status: number, run: () => Promise<{ status: number; json: any }>, error?: string) => {
    const before = await total();
    const answer = await run();
    expect(answer.status).toBe(status);
    if (error) expect(answer.json.error).toBe(error);
    expect(await total()).toBe(before);
  };

  beforeAll(async () => {
    ctx = await setup(dialect, {
      EV_TRUST_PROXY: 'true',
      EV_CREATE_RATE_PER_MINUTE: '10000',
      EV_RATE_LIMIT_PER_MINUTE: '10000',
      EV_ALLOW_PRIVATE_NETWORKS: 'true',
      EV_CHUNK_SIZE: '5',
      EV_LOGIN_MAX_FAILURES_PER_IP: '1000',
    });
    org = ctx.account.id;
    people.owner = { id: org, email: ctx.account.email };
    people.admin = await person('admin');
    people.viewer = await person('viewer');
  });
  afterAll(() => ctx?.teardown());

  it('keys: made, edited and revoked, by a session and by a key (the key and its maker), from the client address', async () => {
    const made = await call(keys.POST, { ...(await session(people.admin)), body: { name: 'CI deploys', role: 'admin' } });
    expect(made.status).toBe(201);
    const created = (await rows('key.created')).find((r) => r.targetId === made.json.id);
    expect(created).toMatchObject({
      orgId: org,
      actorUserId: people.admin.id,
      actorKeyId: null,
      actorEmail: people.admin.email,
      clientAddress: FROM,
      method: 'session',
      targetType: 'key',
      targetId: made.json.id,
      targetLabel: 'CI deploys',
    });
    // never the key itself
    expect(JSON.stringify(created)).not.toContain(made.json.key);

    // the admin's key acts: the row names the key and the person who made it
    const other = await call(keys.POST, { ...byKey(made.json.key), body: { name: 'spare' } });
    expect(other.status).toBe(201);
    const renamed = await call(key.PATCH, { ...byKey(made.json.key), method: 'PATCH', params: { id: other.json.id }, body: { name: 'spare (old)' } });
    expect(renamed.status).toBe(200);
    expect(await rows('key.updated')).toMatchObject([
      {
        actorUserId: people.admin.id,
        actorKeyId: made.json.id,
        actorEmail: people.admin.email,
        method: 'key',
        clientAddress: FROM,
        targetId: other.json.id,
        targetLabel: 'spare (old)',
        details: JSON.stringify({ fields: 'name' }),
      },
    ]);
    const revoked = await call(key.DELETE, { ...byKey(made.json.key), method: 'DELETE', params: { id: other.json.id } });
    expect(revoked.status).toBe(200);
    expect(await rows('key.revoked')).toMatchObject([
      { actorUserId: people.admin.id, actorKeyId: made.json.id, targetId: other.json.id, targetLabel: 'spare (old)' },
    ]);

    // refused: a viewer (403), a key that does not exist or is revoked (404)
    await refusedWithoutRow(403, async () => call(keys.POST, { ...(await session(people.viewer)), body: { name: 'nope' } }), 'insufficient_role');
    await refusedWithoutRow(404, async () =>
      call(key.PATCH, { ...(await session(people.admin)), method: 'PATCH', params: { id: 'key_none' }, body: { name: 'x' } }),
    );
    await refusedWithoutRow(404, async () => call(key.DELETE, { ...(await session(people.admin)), method: 'DELETE', params: { id: other.json.id } }));
  });

  it("webhooks: created and deleted, named by the URL's host only", async () => {
    const made = await call(webhooks.POST, { ...(await session(people.admin)), body: { url: 'http://127.0.0.1:9999/hooks/t0ken-in-path?sig=abc' } });
    expect(made.status).toBe(201);
    const gone = await call(webhook.DELETE, { ...(await session(people.owner)), method: 'DELETE', params: { id: made.json.id } });
    expect(gone.status).toBe(200);
    const [created] = await rows('webhook.created');
    const [deleted] = await rows('webhook.deleted');
    expect(created).toMatchObject({ actorUserId: people.admin.id, targetType: 'webhook', targetId: made.json.id, targetLabel: '127.0.0.1:9999' });
    expect(deleted).toMatchObject({ actorUserId: people.owner.id, actorEmail: people.owner.email, targetId: made.json.id, targetLabel: '127.0.0.1:9999' });
    for (const row of [created, deleted]) expect(JSON.stringify(row)).not.toMatch(/t0ken|sig=|whsec_/);
    await refusedWithoutRow(404, async () => call(webhook.DELETE, { ...(await session(people.admin)), method: 'DELETE', params: { id: made.json.id } }));
    await refusedWithoutRow(
      403,
      async () => call(webhooks.POST, { ...(await session(people.viewer)), body: { url: 'http://127.0.0.1:9999/x' } }),
      'insufficient_role',
    );
  });

  it("rules: added, imported and removed, as counts (a rule's value may be an address)", async () => {
    const added = await call(rules.POST, { ...(await session(people.admin)), body: { action: 'block', match: 'email', value: 'someone@blocked.test' } });
    expect(added.status).toBe(201);
    const imported = await call(ruleImport.POST, {
      ...(await session(people.admin)),
      body: {
        rules: [
          { action: 'allow', match: 'domain', value: 'a.test' },
          { action: 'allow', match: 'domain', value: 'b.test' },
        ],
      },
    });
    expect(imported.status).toBe(200);
    // the same rules again: nothing changes, nothing is recorded
    await refusedWithoutRow(200, async () =>
      call(ruleImport.POST, { ...(await session(people.admin)), body: { rules: [{ action: 'allow', match: 'domain', value: 'a.test' }] } }),
    );
    expect((await call(rule.DELETE, { ...(await session(people.admin)), method: 'DELETE', params: { id: added.json.id } })).status).toBe(200);
    const changed = await rows('rules.changed');
    expect(changed.map((r) => JSON.parse(r.details!))).toEqual([{ added: 1 }, { added: 2 }, { removed: 1 }]);
    expect(changed.every((r) => r.actorUserId === people.admin.id && r.clientAddress === FROM)).toBe(true);
    expect(JSON.stringify(changed)).not.toContain('blocked.test');
    await refusedWithoutRow(404, async () => call(rule.DELETE, { ...(await session(people.admin)), method: 'DELETE', params: { id: added.json.id } }));
    await refusedWithoutRow(
      403,
      async () => call(rules.POST, { ...(await session(people.viewer)), body: { action: 'block', match: 'domain', value: 'c.test' } }),
      'insufficient_role',
    );
  });

  it('lists: uploaded (instant and queued), downloaded once per download, cancelled; named by the file, never an address', async () => {
    const owner = await session(people.owner);
    const emails = (count: number) => Array.from({ length: count }, (_, i) => [`valid.${i}.${Math.random().toString(36).slice(2, 6)}@example.com`]);
    const instant = await call(bulk.POST, { ...owner, body: { columns: ['email'], rows: emails(3), email_column: 0, filename: 'few.csv' } });
    expect(instant.json.status).toBe('completed');
    const queuedRows = emails(12);
    const queued = await call(bulk.POST, { ...owner, body: { columns: ['email'], rows: queuedRows, email_column: 0, filename: 'customers.csv' } });
    expect(queued.json.status).toBe('queued');
    expect(await rows('list.uploaded')).toMatchObject([
      {
        actorUserId: org,
        targetType: 'list',
        targetId: instant.json.job_id,
        targetLabel: 'few.csv',
        clientAddress: FROM,
        details: JSON.stringify({ emails: 3, sandbox: true }),
      },
      {
        actorUserId: org,
        targetType: 'list',
        targetId: queued.json.job_id,
        targetLabel: 'customers.csv',
        details: JSON.stringify({ emails: 12, sandbox: true }),
      },
    ]);

    const file = await call(download.GET, {
      ...(await session(people.viewer)),
      params: { jobId: instant.json.job_id },
      path: `/v1/verify/bulk/download/${instant.json.job_id}?format=csv`,
    });
    expect(file.status).toBe(200);
    expect(await rows('list.downloaded')).toMatchObject([
      { actorUserId: people.viewer.id, targetId: instant.json.job_id, targetLabel: 'few.csv', clientAddress: FROM },
    ]);
    // a download that cannot start (the list is not done) writes nothing
    await refusedWithoutRow(409, async () => call(download.GET, { ...owner, params: { jobId: queued.json.job_id } }));

    const cancelled = await call(job.DELETE, { ...owner, method: 'DELETE', params: { jobId: queued.json.job_id } });
    expect(cancelled.status).toBe(200);
    expect(await rows('list.cancelled')).toMatchObject([{ actorUserId: org, targetId: queued.json.job_id, targetLabel: 'customers.csv' }]);
    await refusedWithoutRow(409, () => call(job.DELETE, { ...owner, method: 'DELETE', params: { jobId: queued.json.job_id } }), 'conflict');
    await refusedWithoutRow(404, () => call(job.DELETE, { ...owner, method: 'DELETE', params: { jobId: 'job_none' } }));
    await refusedWithoutRow(403, async () => call(bulk.POST, { ...(await session(people.viewer)), body: { emails: ['a@example.com'] } }), 'insufficient_role');
    const all = JSON.stringify(await ctx.database.prisma.auditEvent.findMany({ where: { orgId: org } }));
    for (const [address] of queuedRows) expect(all).not.toContain(address);
  });

  it("settings and the organisation's name: from and to", async () => {
    const admin = await session(people.admin);
    expect((await call(quota.POST, { ...admin, body: { warning_below: 500 } })).status).toBe(200);
    expect((await call(retention.POST, { ...admin, body: { retention_days: 30 } })).status).toBe(200);
    expect((await call(reuse.POST, { ...admin, body: { days: 7 } })).status).toBe(200);
    expect((await call(organisation.PATCH, { ...(await session(people.owner)), method: 'PATCH', body: { name: 'Acme' } })).status).toBe(200);
    expect((await rows('settings.changed')).map((r) => [r.actorUserId, r.targetType, JSON.parse(r.details!)])).toEqual([
      [people.admin.id, 'settings', { setting: 'warning_below', from: null, to: 500 }],
      [people.admin.id, 'settings', { setting: 'retention_days', from: null, to: 30 }],
      [people.admin.id, 'settings', { setting: 'reuse_days', from: null, to: 7 }],
      [people.owner.id, 'organisation', { setting: 'name', from: null, to: 'Acme' }],
    ]);
    await refusedWithoutRow(403, async () => call(organisation.PATCH, { ...admin, method: 'PATCH', body: { name: 'Not mine' } }), 'insufficient_role');
    await refusedWithoutRow(403, async () => call(quota.POST, { ...(await session(people.viewer)), body: { warning_below: 1 } }), 'insufficient_role');
    await refusedWithoutRow(400, () => call(retention.POST, { ...admin, body: { retention_days: 0 } }));
  });

  it('members: role changed (from, to) and removed, named by their email; a refused change writes nothing', async () => {
    const someone = await person('viewer');
    const admin = await session(people.admin);
    expect((await call(member.PATCH, { ...admin, method: 'PATCH', params: { userId: someone.id }, body: { role: 'member' } })).status).toBe(200);
    expect(await rows('member.role_changed')).toMatchObject([
      {
        actorUserId: people.admin.id,
        targetType: 'member',
        targetId: someone.id,
        targetLabel: someone.email,
        details: JSON.stringify({ from: 'viewer', to: 'member' }),
      },
    ]);
    await refusedWithoutRow(
      403,
      () => call(member.PATCH, { ...admin, method: 'PATCH', params: { userId: someone.id }, body: { role: 'admin' } }),
      'insufficient_role',
    );
    await refusedWithoutRow(404, () => call(member.PATCH, { ...admin, method: 'PATCH', params: { userId: 'usr_none' }, body: { role: 'viewer' } }));
    // the last owner cannot leave
    await refusedWithoutRow(409, async () => call(leave.DELETE, { ...(await session(people.owner)), method: 'DELETE' }), 'conflict');
    expect((await call(member.DELETE, { ...admin, method: 'DELETE', params: { userId: someone.id } })).status).toBe(200);
    expect(await rows('member.removed')).toMatchObject([
      { actorUserId: people.admin.id, targetId: someone.id, targetLabel: someone.email, details: JSON.stringify({ role: 'member' }) },
    ]);
  });

  it("members: invited and joined (by the link as a new person, or accepted by a signed-in one), never the link's token", async () => {
    const quiet = vi.spyOn(console, 'info').mockImplementation(() => {});
    try {
      const admin = await session(people.admin);
      const newcomer = `newcomer-${dialect}-${Date.now()}@example.com`;
      const invited = await call(invitations.POST, { ...admin, body: { email: newcomer, role: 'member' } });
      expect(invited.status).toBe(201);
      const token = new URL(invited.json.link).searchParams.get('token')!;
      expect((await rows('member.invited')).at(-1)).toMatchObject({
        actorUserId: people.admin.id,
        clientAddress: FROM,
        targetType: 'invitation',
        targetId: invited.json.id,
        targetLabel: newcomer,
        details: JSON.stringify({ role: 'member' }),
      });
      // refused: the same address again (409), a role above the admin's (403)
      await refusedWithoutRow(409, () => call(invitations.POST, { ...admin, body: { email: newcomer, role: 'member' } }), 'conflict');
      await refusedWithoutRow(403, () => call(invitations.POST, { ...admin, body: { email: `x-${newcomer}`, role: 'owner' } }), 'insufficient_role');

      const joined = await joinPage.POST(
        new Request('http://localhost/api/invitations/join', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-forwarded-for': FROM },
          body: JSON.stringify({ token, password: 'a long enough passphrase 2' }),
        }),
      );
      expect(joined.status).toBe(201);
      const person = (await ctx.database.prisma.user.findUnique({ where: { email: newcomer } }))!;
      expect((await rows('member.joined')).at(-1)).toMatchObject({
        actorUserId: person.id,
        actorEmail: newcomer,
        clientAddress: FROM,
        method: 'invitation',
        targetId: person.id,
        targetLabel: newcomer,
      });
      expect(JSON.parse((await rows('member.joined')).at(-1)!.details!)).toEqual({ role: 'member', invitation: invited.json.id });

      // someone with an account accepts while signed in: the row names them and their session's address
      const existing = await ensureAccount(ctx.database, `existing-${dialect}-${Date.now()}@example.com`);
      const second = await call(invitations.POST, { ...admin, body: { email: existing.email, role: 'viewer' } });
      const secondToken = new URL(second.json.link).searchParams.get('token')!;
      const mine = { key: null, headers: { cookie: await sessionCookie(ctx.database, existing.id), ...ORIGIN, 'x-forwarded-for': FROM } };
      expect((await call(accept.POST, { ...mine, body: { token: secondToken } })).status).toBe(200);
      expect((await rows('member.joined')).at(-1)).toMatchObject({
        actorUserId: existing.id,
        actorEmail: existing.email,
        method: 'session',
        targetId: existing.id,
        clientAddress: FROM,
      });
      // a used link: 404, nothing written
      await refusedWithoutRow(404, () => call(accept.POST, { ...mine, body: { token: secondToken } }));
      expect(JSON.stringify(await ctx.database.prisma.auditEvent.findMany())).not.toContain(token);
    } finally {
      quiet.mockRestore();
    }
  });

  it('data erased: the counts, never the address', async () => {
    const gone = `erase.me.${dialect}@example.com`;
    const owner = await session(people.owner);
    await call(bulk.POST, { ...owner, body: { columns: ['email'], rows: [[gone]], email_column: 0, filename: 'one.csv' } });
    const erased = await call(addresses.DELETE, { ...(await session(people.admin)), method: 'DELETE', params: { email: gone } });
    expect(erased.status).toBe(200);
    const [row] = await rows('data.erased');
    expect(row).toMatchObject({ actorUserId: people.admin.id, clientAddress: FROM, targetType: 'data', targetLabel: null });
    expect(JSON.parse(row!.details!)).toEqual(erased.json.removed);
    expect(JSON.parse(row!.details!).list_rows).toBe(1);
    expect(JSON.stringify(await ctx.database.prisma.auditEvent.findMany())).not.toContain(gone);
  });

  it("the operator's scripts: credits granted and an address erased in every organisation, by the command", async () => {
    const grant = spawnSync(process.execPath, [...scriptArgs('scripts/grant-credits.ts'), '--email', people.owner.email, '--credits', '250'], {
      env: process.env,
      encoding: 'utf8',
    });
    expect(grant.status, grant.stderr).toBe(0);
    expect(await rows('credits.granted')).toMatchObject([
      { actorUserId: null, actorKeyId: null, clientAddress: null, method: 'npm run grant-credits', targetId: org },
    ]);
    expect(JSON.parse((await rows('credits.granted'))[0]!.details!)).toMatchObject({ credits: 250 });

    const gone = `twice.${dialect}@example.com`;
    const elsewhere = await ensureAccount(ctx.database, `elsewhere-${dialect}-${Date.now()}@example.com`);
    elsewhereOrg = elsewhere.id;
    const elsewhereKey = (await import('@/lib/accounts/keys')).createApiKey(ctx.database, elsewhere.id, 'k');
    for (const k of [ctx.key, (await elsewhereKey).key])
      await call(bulk.POST, { key: k, body: { columns: ['email'], rows: [[gone]], email_column: 0, filename: 'x.csv' } });
    const before = (await rows('data.erased')).length;
    const erase = spawnSync(process.execPath, [...scriptArgs('scripts/erase.ts'), '--email', gone, '--json'], { env: process.env, encoding: 'utf8' });
    expect(erase.status, erase.stderr).toBe(0);
    expect(JSON.parse(erase.stdout)).toMatchObject({ email: gone, removed: { list_rows: 2 } });
    const ours = (await rows('data.erased')).slice(before);
    expect(ours).toMatchObject([{ method: 'npm run erase', actorUserId: null }]);
    expect(JSON.parse(ours[0]!.details!)).toMatchObject({ list_rows: 1 });
    expect(await rows('data.erased', elsewhere.id)).toMatchObject([{ method: 'npm run erase' }]);
  });

  /** The dashboard's sign-in through next-auth's real route (test/api/auth.test.ts does the same). */
  async function signIn(email: string, password: string, code?: string) {
    const site = 'http://app.test';
    const request = (path: string, init: { headers?: Record<string, string>; body?: string } = {}) =>
      new Request(`${site}${path}`, {
        method: init.body === undefined ? 'GET' : 'POST',
        headers: { host: 'app.test', 'x-forwarded-for': FROM, ...init.headers },
        body: init.body,
      });
    const auth = async (path: string, init: { headers?: Record<string, string>; body?: string } = {}) =>
      answerOf(
        await (init.body === undefined ? nextauth.GET : nextauth.POST)(request(path, init), {
          params: Promise.resolve({ nextauth: path.split('/').slice(3) }),
        }),
      );
    const csrf = await auth('/api/auth/csrf');
    const jar = csrf.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const form = new URLSearchParams({
      csrfToken: csrf.json.csrfToken,
      email,
      password,
      ...(code ? { code } : {}),
      callbackUrl: `${site}/lists`,
      json: 'true',
    });
    const answer = await auth('/api/auth/callback/credentials', {
      headers: { cookie: jar, 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
    });
    return new URL(answer.json.url).searchParams.get('error');
  }

  it('sign-in: succeeded and refused, one row per organisation of the person, with the method and address; an unknown address one row of no organisation', async () => {
    const password = 'a long enough passphrase 1';
    const someone = await person('member', password);
    expect(await signIn(someone.email, password)).toBeNull();
    const succeeded = await ctx.database.prisma.auditEvent.findMany({ where: { action: 'sign_in.succeeded', actorUserId: someone.id } });
    // their own organisation and this one
    expect(succeeded.map((r) => r.orgId).sort()).toEqual([org, someone.id].sort());
    for (const row of succeeded) expect(row).toMatchObject({ actorEmail: someone.email, method: 'password', clientAddress: FROM, actorKeyId: null });

    expect(await signIn(someone.email, 'not the password')).toBe('CredentialsSignin');
    const refused = await ctx.database.prisma.auditEvent.findMany({ where: { action: 'sign_in.failed', actorUserId: someone.id } });
    expect(refused.map((r) => r.orgId).sort()).toEqual([org, someone.id].sort());
    expect(refused.every((r) => r.details === JSON.stringify({ reason: 'wrong_credentials' }) && r.clientAddress === FROM)).toBe(true);
    expect(JSON.stringify(refused)).not.toContain('not the password');

    // with two-factor on: the password alone asks for the code (no row), a wrong code is refused (a row), a recovery code signs in
    const step = await call(twoFactor.POST, { key: null, headers: { cookie: await sessionCookie(ctx.database, someone.id), ...ORIGIN }, body: {} });
    const totp = (secret: string) => {
      const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
      const bits = [...secret].map((c) => alphabet.indexOf(c).toString(2).padStart(5, '0')).join('');
      const counter = Buffer.alloc(8);
      counter.writeBigUInt64BE(BigInt(Math.floor(Date.now() / 30_000)));
      const mac = createHmac('sha1', Buffer.from(bits.match(/.{8}/g)!.map((b) => parseInt(b, 2))))
        .update(counter)
        .digest();
      return String((mac.readUInt32BE(mac[mac.length - 1]! & 0xf) & 0x7fffffff) % 1_000_000).padStart(6, '0');
    };
    const enrolled = await call(twoFactorConfirm.POST, {
      key: null,
      headers: { cookie: await sessionCookie(ctx.database, someone.id), ...ORIGIN },
      body: { code: totp(step.json.secret) },
    });
    expect(enrolled.status, enrolled.text).toBe(200);
    const before = await total();
    expect(await signIn(someone.email, password)).toBe('TwoFactorRequired');
    expect(await total()).toBe(before);
    expect(await signIn(someone.email, password, 'not-a-code')).toBe('TwoFactorInvalid');
    const second = await ctx.database.prisma.auditEvent.findMany({
      where: { action: 'sign_in.failed', actorUserId: someone.id, details: JSON.stringify({ reason: 'second_factor' }) },
    });
    expect(second.map((r) => r.orgId).sort()).toEqual([org, someone.id].sort());
    expect(await signIn(someone.email, password, enrolled.json.recovery_codes[0])).toBeNull();
    expect(await ctx.database.prisma.auditEvent.count({ where: { action: 'sign_in.succeeded', actorUserId: someone.id } })).toBe(4);

    const unknown = `nobody-${dialect}-${Date.now()}@example.com`;
    expect(await signIn(unknown, password)).toBe('CredentialsSignin');
    expect(await rows('sign_in.failed', null)).toMatchObject([{ actorUserId: null, actorEmail: unknown, clientAddress: FROM, method: 'password' }]);
  });

  it("GET /v1/audit: the organisation's rows newest first, filtered by actor, action and time, in cursor pages, and as CSV", async () => {
    const admin = await session(people.admin);
    const everything = await ctx.database.prisma.auditEvent.findMany({ where: { orgId: org }, orderBy: [{ at: 'desc' }, { id: 'desc' }] });
    expect(everything.length).toBeGreaterThan(20);
    // walked in pages of 7: every row once, in order
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await call(audit.GET, { ...admin, path: `/v1/audit?limit=7${cursor ? `&cursor=${cursor}` : ''}` });
      expect(page.status).toBe(200);
      expect(page.json.data.length).toBeLessThanOrEqual(7);
      seen.push(...page.json.data.map((r: any) => r.id));
      cursor = page.json.next_cursor;
    } while (cursor);
    expect(seen).toEqual(everything.map((r) => r.id));

    // the harness's key (made by no one: a script), then the admin's and the admin's key's
    const first = (await call(audit.GET, { ...admin, path: '/v1/audit?action=key.created' })).json.data;
    expect(first.map((r: any) => r.target.label)).toEqual(['spare', 'CI deploys', 'test']);
    expect(first[2].actor).toEqual({ user_id: null, key_id: null, email: null });
    expect(first[1]).toMatchObject({
      action: 'key.created',
      actor: { user_id: people.admin.id, key_id: null, email: people.admin.email },
      target: { type: 'key', label: 'CI deploys' },
      client_address: FROM,
      method: 'session',
    });
    const keyId = (await rows('key.updated'))[0]!.actorKeyId!;
    const byThatKey = (await call(audit.GET, { ...admin, path: `/v1/audit?actor=${keyId}` })).json.data;
    expect(byThatKey.map((r: any) => r.action).sort()).toEqual(['key.created', 'key.revoked', 'key.updated']);
    const byPerson = (await call(audit.GET, { ...admin, path: `/v1/audit?actor=${people.viewer.id}` })).json.data;
    expect(byPerson.map((r: any) => r.action)).toEqual(['list.downloaded']);
    const middle = everything[Math.floor(everything.length / 2)]!.at.toISOString();
    const since = (await call(audit.GET, { ...admin, path: `/v1/audit?limit=200&from=${middle}` })).json.data;
    expect(since.length).toBe(everything.filter((r) => r.at.toISOString() >= middle).length);
    const until = (await call(audit.GET, { ...admin, path: `/v1/audit?limit=200&to=${middle}` })).json.data;
    expect(until.length).toBe(everything.filter((r) => r.at.toISOString() <= middle).length);
    // another organisation's rows are not this one's
    const theirs = await ctx.database.prisma.auditEvent.findMany({ where: { orgId: elsewhereOrg } });
    expect(theirs.length).toBeGreaterThan(0);
    for (const row of theirs) expect(seen).not.toContain(row.id);

    const csv = await call(audit.GET, { ...admin, path: '/v1/audit?format=csv&action=settings.changed' });
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const parsed = Papa.parse<Record<string, string>>(csv.text, { header: true, skipEmptyLines: true }).data;
    expect(parsed.map((r) => r.action)).toEqual(['settings.changed', 'settings.changed', 'settings.changed', 'settings.changed']);
    expect(parsed[0]).toMatchObject({ actor_user_id: people.owner.id, target_label: 'Acme', client_address: FROM });
    const all = Papa.parse((await call(audit.GET, { ...admin, path: '/v1/audit?format=csv' })).text, { header: true, skipEmptyLines: true }).data;
    expect(all.length).toBe(everything.length);

    // bad filters are a 400 naming the parameter
    for (const [query, param] of [
      ['action=key.stolen', 'action'],
      ['from=yesterday', 'from'],
      ['cursor=abc', 'cursor'],
      [`from=${middle}&to=2000-01-01T00:00:00Z`, 'from'],
    ]) {
      const bad = await call(audit.GET, { ...admin, path: `/v1/audit?${query}` });
      expect(bad.status, query).toBe(400);
      expect(bad.json.param, query).toBe(param);
    }
    // admins only (test/api/roles.test.ts walks every role)
    await refusedWithoutRow(403, async () => call(audit.GET, { ...(await session(people.viewer)), path: '/v1/audit' }), 'insufficient_role');
  });

  it('no route can change or delete a row: /v1/audit is GET alone, and nothing but the retention sweep deletes', async () => {
    expect(OPERATIONS.filter((op) => op.path.startsWith('/v1/audit')).map((op) => op.method)).toEqual(['get']);
    expect(Object.keys(audit).filter((name) => /^[A-Z]+$/.test(name))).toEqual(['GET']);
    // every write to audit_events in the code: creates in lib/audit/record.ts and the job insert, the
    // sweep's delete, and the operator's erasure clearing an erased address
    const writers: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (name === 'node_modules' || name === 'generated' || name.startsWith('.')) continue;
        if (statSync(path).isDirectory()) walk(path);
        else if (/\.tsx?$/.test(name) && !name.endsWith('.test.ts')) {
          const text = readFileSync(path, 'utf8');
          if (/auditEvent\.(update|upsert|delete)|(UPDATE|DELETE FROM)\s+"?audit_events/i.test(text)) writers.push(path);
        }
      }
    };
    for (const dir of ['app', 'lib', 'scripts']) walk(dir);
    expect(writers.sort()).toEqual(['lib/retention/erase.ts', 'lib/retention/sweep.ts']);

    // the sweep: rows past EV_AUDIT_RETENTION_DAYS (365 by default) go, younger ones stay
    const count = await ctx.database.prisma.auditEvent.count();
    expect((await retentionPass(ctx.database, { now: Date.now() + 364 * DAY_MS, pace: false })).audit_events).toBe(0);
    expect(await ctx.database.prisma.auditEvent.count()).toBe(count);
    expect((await retentionPass(ctx.database, { now: Date.now() + 366 * DAY_MS, pace: false })).audit_events).toBe(count);
    expect(await ctx.database.prisma.auditEvent.count()).toBe(0);
  });

  it('the row and the action commit together: an audit write that fails takes the action with it', async () => {
    // a trap the test sets on the table: inserting a row of an armed action fails, after the action's own writes in the transaction
    if (dialect === 'sqlite') {
      await ctx.database.prisma.$executeRawUnsafe('CREATE TABLE audit_trap (action TEXT)');
      await ctx.database.prisma.$executeRawUnsafe(
        `CREATE TRIGGER audit_trap BEFORE INSERT ON audit_events WHEN EXISTS (SELECT 1 FROM audit_trap WHERE action = NEW.action) BEGIN SELECT RAISE(ABORT, 'trapped'); END`,
      );
    } else {
      await ctx.database.prisma.$executeRawUnsafe('CREATE TABLE audit_trap (action TEXT)');
      await ctx.database.prisma.$executeRawUnsafe(
        `CREATE FUNCTION audit_trap() RETURNS trigger AS $$ BEGIN IF EXISTS (SELECT 1 FROM audit_trap WHERE action = NEW.action) THEN RAISE EXCEPTION 'trapped'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`,
      );
      await ctx.database.prisma.$executeRawUnsafe('CREATE TRIGGER audit_trap BEFORE INSERT ON audit_events FOR EACH ROW EXECUTE FUNCTION audit_trap()');
    }
    const arm = (action: string) => ctx.database.prisma.$executeRawUnsafe(`INSERT INTO audit_trap (action) VALUES ('${action}')`);
    const disarm = () => ctx.database.prisma.$executeRawUnsafe('DELETE FROM audit_trap');
    const admin = await session(people.admin);
    const owner = await session(people.owner);
    try {
      await arm('key.created');
      const keysBefore = await ctx.database.prisma.apiKey.count();
      expect((await call(keys.POST, { ...admin, body: { name: 'trapped' } })).status).toBe(500);
      expect(await ctx.database.prisma.apiKey.count()).toBe(keysBefore);
      await disarm();

      const made = await call(keys.POST, { ...admin, body: { name: 'to revoke' } });
      await arm('key.revoked');
      expect((await call(key.DELETE, { ...admin, method: 'DELETE', params: { id: made.json.id } })).status).toBe(500);
      expect(await ctx.database.prisma.apiKey.findUnique({ where: { id: made.json.id } })).toMatchObject({ revokedAt: null });
      await disarm();
      expect((await call(key.DELETE, { ...admin, method: 'DELETE', params: { id: made.json.id } })).status).toBe(200);

      // a queued list (on SQLite the direct connection's transaction) and an instant one
      await arm('list.uploaded');
      const jobsBefore = await ctx.database.prisma.job.count();
      const itemsBefore = await ctx.database.prisma.jobItem.count();
      for (const count of [12, 2]) {
        const rowsOf = Array.from({ length: count }, (_, i) => [`valid.trap${i}@example.com`]);
        expect((await call(bulk.POST, { ...owner, body: { columns: ['email'], rows: rowsOf, email_column: 0, filename: 'trap.csv' } })).status).toBe(500);
      }
      expect(await ctx.database.prisma.job.count()).toBe(jobsBefore);
      expect(await ctx.database.prisma.jobItem.count()).toBe(itemsBefore);
      await disarm();

      const someone = await person('viewer');
      await arm('member.removed');
      expect((await call(member.DELETE, { ...admin, method: 'DELETE', params: { userId: someone.id } })).status).toBe(500);
      expect(await ctx.database.prisma.membership.count({ where: { orgId: org, userId: someone.id } })).toBe(1);
      await arm('settings.changed');
      expect((await call(retention.POST, { ...admin, body: { retention_days: 5 } })).status).toBe(500);
      expect((await ctx.database.prisma.user.findUnique({ where: { id: org } }))?.retentionDays).toBe(30);
    } finally {
      await disarm();
    }
  });

  it('has one vocabulary', () => {
    expect(new Set(AUDIT_ACTIONS).size).toBe(AUDIT_ACTIONS.length);
    for (const action of AUDIT_ACTIONS) expect(action).toMatch(/^[a-z_]+\.[a-z_]+$/);
  });
});
