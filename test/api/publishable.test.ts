import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as account from '@/app/v1/account/route';
import * as bulk from '@/app/v1/verify/bulk/route';
import * as history from '@/app/v1/history/route';
import * as rules from '@/app/v1/rules/route';
import * as keyById from '@/app/v1/keys/[id]/route';
import * as keys from '@/app/v1/keys/route';
import * as verify from '@/app/v1/verify/route';
import * as single from '@/app/v1/verify/single/route';
import { DIALECTS } from '../databases';
import { call, setup } from './harness';

const SHOP = 'https://shop.example';

describe.each(DIALECTS)('publishable keys (%s)', (dialect) => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  let pub: { key: string; id: string };

  beforeAll(async () => {
    // the sandbox engine under production accounting: charged like any production check, no SMTP
    ctx = await setup(dialect, { EV_TRUST_PROXY: 'true', EV_PRODUCTION_ENGINE: 'sandbox', EV_FREE_DAILY: '100' });
    const created = await call(keys.POST, {
      key: ctx.key,
      path: '/v1/keys',
      body: { type: 'publishable', name: 'Sign-up form', allowed_origins: [`${SHOP}/`, 'http://localhost:8080'] },
    });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      type: 'publishable',
      scopes: ['verify'],
      allowed_origins: [SHOP, 'http://localhost:8080'],
      rate_limits: { per_visitor_per_minute: 20, per_key_per_minute: 600 },
    });
    expect(created.json.key).toMatch(/^ev_pub_/);
    pub = { key: created.json.key, id: created.json.id };
  });
  afterAll(() => ctx?.teardown());

  const fromPage = (origin: string | null, extra: { path?: string; email?: string; ip?: string; sandbox?: boolean } = {}) =>
    call(single.POST, {
      key: null,
      sandbox: extra.sandbox ?? false,
      path: extra.path ?? `/v1/verify/single?key=${pub.key}`,
      headers: { ...(origin ? { origin } : {}), 'x-forwarded-for': extra.ip ?? '198.51.100.1', cookie: 'next-auth.session-token=ignored' },
      body: { email: extra.email ?? 'valid@example.com' },
    });

  it('needs allowed origins, holds only verify, and keeps secret-key fields off', async () => {
    const cases: [unknown, string][] = [
      [{ type: 'publishable' }, 'allowed_origins'],
      [{ type: 'publishable', allowed_origins: ['https://shop.example/path'] }, 'allowed_origins.0'],
      [{ type: 'publishable', allowed_origins: [SHOP], scopes: ['verify', 'history'] }, 'scopes'],
      [{ rate_limits: { per_visitor_per_minute: 5 } }, 'rate_limits'],
    ];
    for (const [body, param] of cases) {
      const answer = await call(keys.POST, { key: ctx.key, path: '/v1/keys', body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.json.param).toBe(param);
    }
  });

  it('answers a listed origin with CORS headers, no credentials and no evidence, and charges it', async () => {
    const before = (await call(account.GET, { key: ctx.key, sandbox: false })).json.used_today;
    const answer = await fromPage(SHOP);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('access-control-allow-origin')).toBe(SHOP);
    expect(answer.headers.get('access-control-allow-credentials')).toBeNull();
    expect(answer.headers.get('vary')).toContain('Origin');
    expect(answer.json).toMatchObject({ email: 'valid@example.com', evidence: null, sandbox: false });
    const after = (await call(account.GET, { key: ctx.key, sandbox: false })).json.used_today;
    expect(after).toBe(before + 1);

    const sdkShape = await call(verify.POST, {
      key: null,
      sandbox: false,
      path: `/v1/verify?key=${pub.key}`,
      headers: { origin: 'http://localhost:8080' },
      body: { email: 'valid@gmial.com' },
    });
    expect(sdkShape.status).toBe(200);
    expect(sdkShape.json).toMatchObject({ did_you_mean: 'valid@gmail.com', evidence: null });
  });

  it('refuses other origins and requests without one, with no CORS grant', async () => {
    for (const origin of ['https://evil.example', 'https://shop.example.evil.test', null]) {
      const answer = await fromPage(origin);
      expect(answer.status, String(origin)).toBe(403);
      expect(answer.json).toMatchObject({ error: 'origin_not_allowed' });
      expect(answer.headers.get('access-control-allow-origin')).toBeNull();
    }
  });

  it('answers the preflight for listed origins only', async () => {
    const preflight = (origin: string, path = `/v1/verify/single?key=${pub.key}`) =>
      call(single.OPTIONS as never, {
        key: null,
        method: 'OPTIONS',
        path,
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-ev-sandbox' },
        contract: false,
      });
    const granted = await preflight(SHOP);
    expect(granted.status).toBe(204);
    expect(granted.headers.get('access-control-allow-origin')).toBe(SHOP);
    expect(granted.headers.get('access-control-allow-methods')).toBe('POST');
    expect(granted.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('x-ev-sandbox');
    expect(granted.headers.get('access-control-allow-credentials')).toBeNull();
    for (const refused of [
      await preflight('https://evil.example'),
      await preflight(SHOP, '/v1/verify/single'),
      await preflight(SHOP, `/v1/verify/single?key=${ctx.key}`),
    ]) {
      expect(refused.status).toBe(403);
      expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    }
  });

  it('can call nothing but the single-address checks', async () => {
    const headers = { origin: SHOP };
    const list = await call(history.GET, { key: null, path: `/v1/history?key=${pub.key}`, headers });
    expect(list.status).toBe(403);
    expect(list.json).toMatchObject({ error: 'insufficient_scope', scope: 'history' });
    const lists = await call(bulk.POST, { key: null, path: `/v1/verify/bulk?key=${pub.key}`, headers, body: { emails: ['valid@example.com'] } });
    expect(lists.json).toMatchObject({ error: 'insufficient_scope', scope: 'verify' });
    expect(lists.json.message).toContain('publishable');
    // a secret key in the URL would land in logs: refused
    const secretInUrl = await call(single.POST, { key: null, path: `/v1/verify/single?key=${ctx.key}`, body: { email: 'valid@example.com' } });
    expect(secretInUrl.status).toBe(401);
  });

  it("applies the account's rules to the page's checks, in both modes, without a charge", async () => {
    const rule = await call(rules.POST, { key: ctx.key, body: { action: 'block', match: 'domain', value: 'blocked-by-owner.example' } });
    expect(rule.status).toBe(201);
    const before = (await call(account.GET, { key: ctx.key, sandbox: false })).json.used_today;
    for (const sandbox of [false, true]) {
      const answer = await fromPage(SHOP, { email: 'someone@blocked-by-owner.example', ip: '198.51.100.40', sandbox });
      expect(answer.status, `sandbox ${sandbox}`).toBe(200);
      expect(answer.json).toMatchObject({ status: 'undeliverable', reason: 'blocklisted', rule_id: rule.json.id, evidence: null });
    }
    expect((await call(account.GET, { key: ctx.key, sandbox: false })).json.used_today).toBe(before);
  });

  it('limits requests per visitor address and per key, as the key sets them, in both modes', async () => {
    const created = await call(keys.POST, {
      key: ctx.key,
      path: '/v1/keys',
      body: { type: 'publishable', allowed_origins: [SHOP], rate_limits: { per_visitor_per_minute: 2, per_key_per_minute: 3 } },
    });
    const path = `/v1/verify/single?key=${created.json.key}`;
    // the windows are fixed minutes: start this sequence well inside one
    if (Date.now() % 60_000 > 55_000) await new Promise((r) => setTimeout(r, 60_500 - (Date.now() % 60_000)));
    const statuses = async (ip: string, n: number, sandbox = false) => {
      const out: number[] = [];
      for (let i = 0; i < n; i++) out.push((await fromPage(SHOP, { path, ip, sandbox })).status);
      return out;
    };
    expect(await statuses('198.51.100.10', 3, true)).toEqual([200, 200, 429]); // the visitor's two
    expect(await statuses('198.51.100.10:40001', 1)).toEqual([429]); // another port is the same visitor
    expect(await statuses('198.51.100.11', 2)).toEqual([200, 429]); // the key's third, then the key is spent
    const limited = await fromPage(SHOP, { path, ip: '198.51.100.12' });
    expect(limited.json).toMatchObject({ error: 'rate_limit' });
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(limited.headers.get('access-control-allow-origin')).toBe(SHOP); // the page can read why

    // and the owner changes them, or puts the defaults back
    const patched = await call(keyById.PATCH, {
      key: ctx.key,
      method: 'PATCH',
      path: `/v1/keys/${created.json.id}`,
      params: { id: created.json.id },
      body: { rate_limits: { per_visitor_per_minute: 5 } },
    });
    // only the limits sent change
    expect(patched.json.rate_limits).toMatchObject({ per_visitor_per_minute: 5, per_key_per_minute: 3, checks_per_day: 1000 });
    const reset = await call(keyById.PATCH, {
      key: ctx.key,
      method: 'PATCH',
      path: `/v1/keys/${created.json.id}`,
      params: { id: created.json.id },
      body: { rate_limits: null, allowed_origins: ['https://other.example'] },
    });
    expect(reset.json).toMatchObject({
      rate_limits: { per_visitor_per_minute: 20, per_key_per_minute: 600 },
      allowed_origins: ['https://other.example'],
      scopes: ['verify'],
    });
  });
});
