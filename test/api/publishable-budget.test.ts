import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as keyById from '@/app/v1/keys/[id]/route';
import * as keys from '@/app/v1/keys/route';
import * as single from '@/app/v1/verify/single/route';
import * as webhooks from '@/app/v1/webhooks/route';
import { changesOf, draftOf } from '@/components/settings/key-draft';
import { grantCredits } from '@/lib/accounts/quota';
import { sandboxVerdict } from '@/lib/verifier/sandbox';
import { dispatchDueDeliveries } from '@/lib/webhooks/dispatch';
import { DIALECTS } from '../databases';
import { call, setup } from './harness';

// Item 2 of issue 29: a publishable key spends within a daily cap of charged checks (settable per
// key through the API, listed with today's count), its visitors are counted by IPv4 address and
// IPv6 /64, and quota.warning tells the account when a key nears its cap.
const SHOP = 'https://shop.example';
// an address the sandbox engine answers `unknown` (not charged) in production accounting
const UNKNOWN = Array.from({ length: 500 }, (_, i) => `maybe${i}@example.com`).find((email) => sandboxVerdict(email).status === 'unknown')!;

async function receiver() {
  const received: { headers: Record<string, string>; body: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push({ headers: req.headers as Record<string, string>, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received, close: () => new Promise((r) => server.close(r)) };
}

describe.each(DIALECTS)("publishable keys' budgets (%s)", (dialect) => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  let n = 0;
  beforeAll(async () => {
    ctx = await setup(dialect, {
      EV_TRUST_PROXY: '1',
      EV_PRODUCTION_ENGINE: 'sandbox',
      EV_FREE_DAILY: '0',
      EV_ALLOW_PRIVATE_NETWORKS: 'true',
      EV_ALLOW_PLACEHOLDER_IDENTITY: 'true',
      EV_PUBLISHABLE_PER_VISITOR_PER_MINUTE: '1000',
    });
    await grantCredits(ctx.database, ctx.account.id, 1000);
  });
  afterAll(() => ctx?.teardown());

  const makeKey = async (rateLimits?: Record<string, number>) => {
    const made = await call(keys.POST, {
      key: ctx.key,
      path: '/v1/keys',
      body: { type: 'publishable', name: `form ${++n}`, allowed_origins: [SHOP], ...(rateLimits && { rate_limits: rateLimits }) },
    });
    expect(made.status).toBe(201);
    return made.json as { key: string; id: string; rate_limits: Record<string, number> };
  };
  const fromPage = (pub: string, email: string, ip = '198.51.100.1') =>
    call(single.POST, { key: null, sandbox: false, path: `/v1/verify/single?key=${pub}`, headers: { origin: SHOP, 'x-forwarded-for': ip }, body: { email } });
  const listed = async (id: string) => (await call(keys.GET, { key: ctx.key, path: '/v1/keys' })).json.data.find((k: any) => k.id === id);

  it("has a modest default cap, listed with today's charged checks, and a cap set per key through the API", async () => {
    const pub = await makeKey({ per_visitor_per_minute: 7 });
    expect(pub.rate_limits).toEqual({ per_visitor_per_minute: 7, per_key_per_minute: 600, checks_per_day: 1000, checks_today: 0 });
    const patched = await call(keyById.PATCH, {
      key: ctx.key,
      method: 'PATCH',
      path: `/v1/keys/${pub.id}`,
      params: { id: pub.id },
      body: { rate_limits: { checks_per_day: 3 } },
    });
    expect(patched.status).toBe(200);
    // only the limits sent change (the dashboard sends the cap alone)
    expect(patched.json.rate_limits).toEqual({ per_visitor_per_minute: 7, per_key_per_minute: 600, checks_per_day: 3, checks_today: 0 });
    const reset = await call(keyById.PATCH, { key: ctx.key, method: 'PATCH', path: `/v1/keys/${pub.id}`, params: { id: pub.id }, body: { rate_limits: null } });
    expect(reset.json.rate_limits).toEqual({ per_visitor_per_minute: 1000, per_key_per_minute: 600, checks_per_day: 1000, checks_today: 0 });
    const bad = await call(keyById.PATCH, {
      key: ctx.key,
      method: 'PATCH',
      path: `/v1/keys/${pub.id}`,
      params: { id: pub.id },
      body: { rate_limits: { checks_per_day: 0 } },
    });
    expect(bad.json).toMatchObject({ error: 'invalid_request', param: 'rate_limits.checks_per_day' });
  });

  it("the dashboard's edit sends the daily cap only when changed, and an emptied cap follows the installation's default again", async () => {
    const pub = await makeKey({ per_visitor_per_minute: 7 });
    const edit = async (change: (draft: ReturnType<typeof draftOf>) => void) => {
      const key = await listed(pub.id);
      const before = draftOf(key);
      const draft = { ...before };
      change(draft);
      const saved = await call(keyById.PATCH, {
        key: ctx.key,
        method: 'PATCH',
        path: `/v1/keys/${pub.id}`,
        params: { id: pub.id },
        body: changesOf(draft, true, before),
      });
      expect(saved.status).toBe(200);
      return (await ctx.database.prisma.apiKey.findUniqueOrThrow({ where: { id: pub.id } })).checksPerDay;
    };
    // the form shows the default in force (1000); saving another change leaves the key on the default
    expect(draftOf(await listed(pub.id)).perDay).toBe('1000');
    expect(await edit((draft) => (draft.origins = `${SHOP}, https://other.example`))).toBeNull();
    expect(await edit((draft) => (draft.perDay = '25'))).toBe(25);
    expect(await edit((draft) => (draft.expires = '2999-01-01'))).toBe(25);
    expect(await edit((draft) => (draft.perDay = ''))).toBeNull();
    const after = await listed(pub.id);
    // the per-minute limits are not the form's: they stay
    expect(after.rate_limits).toEqual({ per_visitor_per_minute: 7, per_key_per_minute: 600, checks_per_day: 1000, checks_today: 0 });
    expect(after.allowed_origins).toEqual([SHOP, 'https://other.example']);
  });

  it('refuses charged checks past the cap until midnight UTC; uncharged and cached answers do not count', async () => {
    const pub = await makeKey({ checks_per_day: 3 });
    for (const email of ['valid.a@example.com', 'valid.b@example.com']) expect((await fromPage(pub.key, email)).status).toBe(200);
    const unknown = await fromPage(pub.key, UNKNOWN);
    expect(unknown.json.status).toBe('unknown');
    expect((await listed(pub.id)).rate_limits.checks_today).toBe(2);
    expect((await fromPage(pub.key, 'valid.c@example.com')).status).toBe(200);
    const refused = await fromPage(pub.key, 'valid.d@example.com');
    expect(refused.status).toBe(429);
    expect(refused.json).toMatchObject({ error: 'rate_limit', limit: 3 });
    const retryAfter = Number(refused.headers.get('retry-after'));
    const midnight = Math.ceil((new Date().setUTCHours(24, 0, 0, 0) - Date.now()) / 1000);
    expect(retryAfter).toBeGreaterThan(midnight - 5);
    expect(retryAfter).toBeLessThanOrEqual(midnight + 1);
    // an answer from the cache is free, so it is still given
    const cached = await fromPage(pub.key, 'valid.a@example.com');
    expect(cached.status).toBe(200);
    expect(cached.json.cached).toBe(true);
    expect((await listed(pub.id)).rate_limits.checks_today).toBe(3);
    // the account's secret key is not capped
    expect((await call(single.POST, { key: ctx.key, sandbox: false, body: { email: 'valid.e@example.com' } })).status).toBe(200);
  });

  it('holds the cap exactly under concurrent checks', async () => {
    const pub = await makeKey({ checks_per_day: 5 });
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => fromPage(pub.key, `valid.burst${i}@example.com`)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(5);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(7);
    expect((await listed(pub.id)).rate_limits.checks_today).toBe(5);
  });

  it('counts an IPv6 visitor by its /64 and an IPv4 visitor by its address', async () => {
    const pub = await makeKey({ per_visitor_per_minute: 2 });
    const statuses = async (ips: string[]) => {
      const out: number[] = [];
      for (const ip of ips) out.push((await fromPage(pub.key, `valid.v${++n}@example.com`, ip)).status);
      return out;
    };
    // three addresses of one /64: one visitor
    expect(await statuses(['2001:db8:7:1::1', '2001:db8:7:1::2', '2001:db8:7:1:ffff::3'])).toEqual([200, 200, 429]);
    // the next /64 is another visitor; neighbouring IPv4 addresses are others too
    expect(await statuses(['2001:db8:7:2::1', '203.0.113.1', '203.0.113.2'])).toEqual([200, 200, 200]);
  });

  it('sends quota.warning once a day when a key reaches four fifths of its cap', async () => {
    const peer = await receiver();
    try {
      const hook = await call(webhooks.POST, { key: ctx.key, body: { url: peer.url, events: ['quota.warning'] } });
      const pub = await makeKey({ checks_per_day: 5 });
      for (let i = 0; i < 3; i++) await fromPage(pub.key, `valid.w${i}@example.com`);
      await dispatchDueDeliveries(ctx.database);
      expect(peer.received).toHaveLength(0);
      for (let i = 3; i < 6; i++) await fromPage(pub.key, `valid.w${i}@example.com`);
      await dispatchDueDeliveries(ctx.database);
      const events = peer.received.map(({ headers, body }) => new Webhook(hook.json.secret).verify(body, headers) as { type: string; data: any });
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({
        type: 'quota.warning',
        data: { publishable_key: { id: pub.id, name: `form ${n}`, checks_today: 4, checks_per_day: 5 }, credits: expect.any(Number) },
      });
    } finally {
      await peer.close();
    }
  });
});
