import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import * as unknownPath from '@/app/v1/[...path]/route';
import * as keyById from '@/app/v1/keys/[id]/route';
import * as keys from '@/app/v1/keys/route';
import * as history from '@/app/v1/history/route';
import * as single from '@/app/v1/verify/single/route';
import { createApiKey } from '@/lib/accounts/keys';
import { ensureAccount } from '@/lib/accounts/users';
import { SCOPES, type Scope } from '@/lib/accounts/scopes';
import { OPERATIONS } from '@/lib/api/operations';
import { DIALECTS } from '../databases';
import { ROUTE_MODULES } from './contract';
import { call, setup } from './harness';

type Handler = Parameters<typeof call>[0];

// Every authenticated operation, from the one declaration of its scope (lib/api/operations/), with
// the route file that serves it (ROUTE_MODULES: lib/api/openapi.test.ts keeps both complete).
const SCOPED = OPERATIONS.filter((op) => op.scope !== 'public').map((op) => {
  const params = Object.fromEntries([...op.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => [name!, `${name}_none`]));
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => `${name}_none`);
  const handler = ROUTE_MODULES[op.path]?.[op.method.toUpperCase()] as Handler;
  return { op, scope: op.scope as Scope, params, path, handler };
});

describe.each(DIALECTS)('scoped keys (%s)', (dialect) => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  const keyOf = async (options: Parameters<typeof createApiKey>[2]) => (await createApiKey(ctx.database, ctx.account.id, options)).key;

  beforeAll(async () => {
    ctx = await setup(dialect, { EV_CREATE_RATE_PER_MINUTE: '10000', EV_TRUST_PROXY: 'true', EV_MAX_ACTIVE_KEYS_PER_ACCOUNT: '1000' });
  });
  afterAll(() => ctx?.teardown());

  it('declares a scope for every route file and method', () => {
    for (const { op, handler } of SCOPED) {
      expect(handler, `${op.method} ${op.path}: no route handler`).toBeTypeOf('function');
      expect(SCOPES, `${op.method} ${op.path}`).toContain(op.scope);
    }
  });

  it.each(SCOPED.map((s) => [`${s.op.method.toUpperCase()} ${s.op.path}`, s] as const))(
    '%s refuses a key without its scope and admits one with it',
    async (_name, { op, scope, params, path, handler }) => {
      const without = await keyOf({ name: 'without', scopes: SCOPES.filter((s) => s !== scope) });
      const refused = await call(handler, {
        key: without,
        method: op.method.toUpperCase(),
        path,
        params,
        body: op.method === 'post' || op.method === 'patch' ? {} : undefined,
      });
      expect(refused.status).toBe(403);
      expect(refused.json).toMatchObject({ error: 'insufficient_scope', scope });
      expect(refused.json.message).toContain(scope);

      const only = await keyOf({ name: 'only', scopes: [scope] });
      const admitted = await call(handler, {
        key: only,
        method: op.method.toUpperCase(),
        path,
        params,
        body: op.method === 'post' || op.method === 'patch' ? {} : undefined,
      });
      expect(admitted.json?.error ?? null).not.toBe('insufficient_scope');
    },
  );

  it('lets a key made without scopes call everything, and lists it with every scope', async () => {
    const listed = await call(keys.GET, { key: ctx.key, path: '/v1/keys' });
    expect(listed.status).toBe(200);
    const first = listed.json.data.find((k: any) => k.name === 'test');
    expect(first).toMatchObject({ type: 'secret', scopes: [...SCOPES], allowed_ips: null, allowed_origins: null, expires_at: null, rate_limits: null });
    expect((await call(history.GET, { key: ctx.key, path: '/v1/history' })).status).toBe(200);
  });

  it('treats HEAD as the GET it is answered by', async () => {
    const historyOnly = await keyOf({ scopes: ['history'] });
    expect((await call(history.GET, { key: historyOnly, method: 'HEAD', path: '/v1/history', contract: false })).status).toBe(200);
    const verifyOnly = await keyOf({ scopes: ['verify'] });
    expect((await call(history.GET, { key: verifyOnly, method: 'HEAD', path: '/v1/history', contract: false })).status).toBe(403);
  });

  it('answers an unknown path 404 to a scoped key', async () => {
    const verifyOnly = await keyOf({ scopes: ['verify'] });
    const answer = await call(unknownPath.GET, { key: verifyOnly, path: '/v1/nothing' });
    expect(answer.status).toBe(404);
  });

  it('creates, lists and edits scopes, restrictions and expiry through the API', async () => {
    const expires = new Date(Date.now() + 86_400_000).toISOString();
    const created = await call(keys.POST, {
      key: ctx.key,
      path: '/v1/keys',
      body: { name: 'CRM', scopes: ['verify', 'jobs'], allowed_ips: ['203.0.113.0/24', '2001:DB8::/32', '198.51.100.7'], expires_at: expires },
    });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      name: 'CRM',
      scopes: ['verify', 'jobs'],
      allowed_ips: ['203.0.113.0/24', '2001:db8::/32', '198.51.100.7'],
      expires_at: expires,
    });
    expect(created.json.key).toMatch(/^ev_live_/);

    const id = created.json.id;
    const patched = await call(keyById.PATCH, {
      key: ctx.key,
      method: 'PATCH',
      path: `/v1/keys/${id}`,
      params: { id },
      body: { scopes: ['verify'], allowed_ips: null, expires_at: null },
    });
    expect(patched.status).toBe(200);
    expect(patched.json).toMatchObject({ id, name: 'CRM', scopes: ['verify'], allowed_ips: null, expires_at: null });
    const jobs = await call(ROUTE_MODULES['/v1/verify/bulk']!.GET as Handler, { key: created.json.key, path: '/v1/verify/bulk' });
    expect(jobs.json).toMatchObject({ error: 'insufficient_scope', scope: 'jobs' });

    const reset = await call(keyById.PATCH, { key: ctx.key, method: 'PATCH', path: `/v1/keys/${id}`, params: { id }, body: { scopes: null } });
    expect(reset.json.scopes).toEqual([...SCOPES]);
    const other = await call(keyById.PATCH, { key: ctx.key, method: 'PATCH', path: '/v1/keys/key_none', params: { id: 'key_none' }, body: { name: 'x' } });
    expect(other.status).toBe(404);
  });

  it('refuses bad restrictions with 400 naming the field', async () => {
    const cases: [unknown, string][] = [
      [{ scopes: ['everything'] }, 'scopes.0'],
      [{ allowed_ips: ['10.0.0.0/33'] }, 'allowed_ips.0'],
      [{ allowed_ips: ['not-an-ip'] }, 'allowed_ips.0'],
      [{ expires_at: new Date(Date.now() - 1000).toISOString() }, 'expires_at'],
      [{ expires_at: 'tomorrow' }, 'expires_at'],
      [{ allowed_origins: ['https://shop.example'] }, 'allowed_origins'],
    ];
    for (const [body, param] of cases) {
      const answer = await call(keys.POST, { key: ctx.key, path: '/v1/keys', body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.json.param).toBe(param);
    }
  });

  it("holds a key to its allowed IPv4 and IPv6 addresses, from the trusted proxy's last hop", async () => {
    const key = await keyOf({ allowed_ips: ['203.0.113.0/24', '2001:db8::/32', '198.51.100.7'] });
    const from = (ip: string) => call(history.GET, { key, path: '/v1/history', headers: { 'x-forwarded-for': `192.0.2.1, ${ip}` } });
    for (const ip of ['203.0.113.9', '2001:db8::5', '198.51.100.7', '::ffff:203.0.113.200', '203.0.113.9:51234', '[2001:DB8::5]:443'])
      expect((await from(ip)).status, ip).toBe(200);
    for (const ip of ['203.0.114.1', '2001:db9::1', '198.51.100.8']) {
      const refused = await from(ip);
      expect(refused.status, ip).toBe(403);
      expect(refused.json).toMatchObject({ error: 'ip_not_allowed' });
    }
    // the client's own X-Forwarded-For entries before the proxy's hop do not count
    expect((await call(history.GET, { key, path: '/v1/history', headers: { 'x-forwarded-for': '203.0.113.9, 192.0.2.1' } })).status).toBe(403);
  });

  it('refuses an IP-limited key when the server cannot tell the client address (no EV_TRUST_PROXY)', async () => {
    const key = await keyOf({ allowed_ips: ['203.0.113.0/24'] });
    process.env.EV_TRUST_PROXY = 'false';
    try {
      const refused = await call(history.GET, { key, path: '/v1/history', headers: { 'x-forwarded-for': '203.0.113.9' } });
      expect(refused.status).toBe(403);
      expect(refused.json.message).toContain('EV_TRUST_PROXY');
    } finally {
      process.env.EV_TRUST_PROXY = 'true';
    }
  });

  it('answers 401 once a key has expired', async () => {
    const { key, info } = await createApiKey(ctx.database, ctx.account.id, { expires_at: new Date(Date.now() + 60_000).toISOString() });
    expect((await call(single.POST, { key, path: '/v1/verify/single', body: { email: 'valid@example.com' } })).status).toBe(200);
    // a minute on, on a fake clock: the process's cached lookup holds the expiry too
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse(info.expiresAt!) + 1 });
    try {
      const expired = await call(single.POST, { key, path: '/v1/verify/single', body: { email: 'valid@example.com' } });
      expect(expired.status).toBe(401);
      expect(expired.json).toMatchObject({ error: 'authentication_error' });
      expect(expired.json.message).toContain('expired');
    } finally {
      vi.useRealTimers();
    }
  });

  it("does not count an expired key among the account's active keys", async () => {
    const owner = await ensureAccount(ctx.database, `cap-${dialect}-${Date.now()}@example.com`);
    process.env.EV_MAX_ACTIVE_KEYS_PER_ACCOUNT = '2';
    try {
      const first = await createApiKey(ctx.database, owner.id, { expires_at: new Date(Date.now() + 60_000).toISOString() });
      await createApiKey(ctx.database, owner.id, 'second');
      await expect(createApiKey(ctx.database, owner.id, 'third')).rejects.toMatchObject({ code: 'limit_reached' });
      await ctx.database.prisma.apiKey.update({ where: { id: first.info.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
      expect((await createApiKey(ctx.database, owner.id, 'third')).info.name).toBe('third');
    } finally {
      delete process.env.EV_MAX_ACTIVE_KEYS_PER_ACCOUNT;
    }
  });
});
