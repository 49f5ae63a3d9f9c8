import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as single from '@/app/v1/verify/single/route';
import * as bulk from '@/app/v1/verify/bulk/route';
import * as webhooks from '@/app/v1/webhooks/route';
import * as webhookTest from '@/app/v1/webhooks/[id]/test/route';
import * as deliveries from '@/app/v1/webhooks/[id]/deliveries/route';
import * as replay from '@/app/v1/webhooks/[id]/deliveries/[deliveryId]/replay/route';
import { ensureAccount } from '@/lib/accounts/users';
import { createApiKey } from '@/lib/accounts/keys';
import { IDEMPOTENCY_TTL_MS, requestHash } from '@/lib/api/idempotency';
import { DIALECTS } from '../databases';
import { call, setup } from './harness';

const EMAILS = Array.from({ length: 15 }, (_, i) => `valid${i}@x.com`); // above the instant limit: a queued job
const BULK = '/v1/verify/bulk';
const withKey = (key: string) => ({ 'idempotency-key': key });

describe.each(DIALECTS)('Idempotency-Key on %s', (dialect) => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  let other: { id: string; key: string };

  beforeAll(async () => {
    process.env.EV_SANDBOX_TIMEOUT_MS = '500';
    process.env.EV_ALLOW_PRIVATE_NETWORKS = 'true';
    process.env.EV_EMBEDDED_WORKER = 'false';
    ctx = await setup(dialect);
    const account = await ensureAccount(ctx.database, `other-${dialect}@example.com`);
    other = { id: account.id, key: (await createApiKey(ctx.database, account.id)).key };
  });
  afterAll(async () => ctx.teardown());

  const post = (key: string, body: unknown, idem: string, path = BULK, contract = true) =>
    call(bulk.POST, { key, body, path, headers: withKey(idem), contract });

  it('replays the first answer to a retry without running it again', async () => {
    const first = await post(ctx.key, { emails: EMAILS }, 'bulk-1');
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await post(ctx.key, { emails: EMAILS }, 'bulk-1');
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
    expect(again.json.job_id).toBe(first.json.job_id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
    expect(await ctx.database.prisma.job.count({ where: { userId: ctx.account.id } })).toBe(1);
  });

  it('refuses the same key with another body (422) and in another mode', async () => {
    const res = await post(ctx.key, { emails: EMAILS.slice(1) }, 'bulk-1');
    expect(res.status).toBe(422);
    expect(res.json).toMatchObject({ error: 'idempotency_key_reused', param: 'Idempotency-Key' });
    const live = await call(bulk.POST, { key: ctx.key, body: { emails: EMAILS }, path: BULK, sandbox: false, headers: withKey('bulk-1') });
    expect(live.status).toBe(422);
  });

  it('stores 4xx answers and replays them', async () => {
    const bad = await post(ctx.key, { emails: [] }, 'bad-1');
    expect(bad.status).toBe(400);
    const again = await post(ctx.key, { emails: [] }, 'bad-1');
    expect(again.status).toBe(400);
    expect(again.text).toBe(bad.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('answers 409 while the original is running, and a 5xx releases the key', async () => {
    const body = { email: 'error-timeout@x.com' };
    const slow = call(single.POST, { key: ctx.key, body, headers: withKey('slow-1') });
    await new Promise((r) => setTimeout(r, 150));
    const busy = await call(single.POST, { key: ctx.key, body, headers: withKey('slow-1') });
    expect(busy.status).toBe(409);
    expect(busy.json).toMatchObject({ error: 'conflict', message: expect.stringMatching(/in progress/) });
    expect((await slow).status).toBe(504);
    // The 504 was not stored: the retry runs (and times out) again rather than being replayed.
    const retry = await call(single.POST, { key: ctx.key, body, headers: withKey('slow-1') });
    expect(retry.status).toBe(504);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
  });

  it('lets exactly one of several simultaneous first requests run', async () => {
    const before = await ctx.database.prisma.job.count();
    const answers = await Promise.all(Array.from({ length: 5 }, () => post(ctx.key, { emails: EMAILS }, 'race-1')));
    expect(answers.filter((a) => a.status === 200 && !a.headers.get('idempotent-replayed'))).toHaveLength(1);
    // the others: 409 while the first runs, or 429 past the account's bulk slots (lib/api/heavy.ts)
    for (const a of answers) expect([200, 409, 429]).toContain(a.status);
    expect(await ctx.database.prisma.job.count()).toBe(before + 1);
  });

  it('does not store a 500: the key is free for the next request', async () => {
    const failed = await call(single.POST, { key: ctx.key, body: { email: 'error-server@x.com' }, headers: withKey('srv-1') });
    expect(failed.status).toBe(500);
    expect(await ctx.database.prisma.idempotencyKey.count({ where: { key: 'srv-1' } })).toBe(0);
    const next = await call(single.POST, { key: ctx.key, body: { email: 'valid@x.com' }, headers: withKey('srv-1') });
    expect(next.status).toBe(200);
    expect(next.headers.get('idempotent-replayed')).toBeNull();
  });

  it('keeps keys per account', async () => {
    const mine = await post(ctx.key, { emails: EMAILS }, 'shared');
    const theirs = await post(other.key, { emails: EMAILS }, 'shared');
    expect(theirs.status).toBe(200);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.json.job_id).not.toBe(mine.json.job_id);
    expect(await ctx.database.prisma.job.count({ where: { userId: other.id } })).toBe(1);
  });

  it('forgets keys after 24 hours', async () => {
    const hash = requestHash(new Request(`http://localhost${BULK}`, { method: 'POST' }), true, Buffer.from('{"emails":["a@x.com"]}'));
    const row = (key: string, ageMs: number) => ({
      userId: ctx.account.id,
      key,
      requestHash: hash,
      state: 'done',
      responseStatus: 200,
      responseBody: '{"old":true}',
      createdAt: BigInt(Date.now() - ageMs),
    });
    await ctx.database.prisma.idempotencyKey.createMany({ data: [row('old', IDEMPOTENCY_TTL_MS + 60_000), row('young', IDEMPOTENCY_TTL_MS - 60_000)] });
    // the planted answer is not one the API would give, so it is not checked against the document
    const young = await post(ctx.key, { emails: ['a@x.com'] }, 'young', BULK, false);
    expect(young.json).toEqual({ old: true });
    const old = await post(ctx.key, { emails: ['a@x.com'] }, 'old');
    expect(old.status).toBe(200);
    expect(old.json.job_id).toMatch(/.+/);
    expect(old.headers.get('idempotent-replayed')).toBeNull();
  });

  it('validates the key and ignores it on GET', async () => {
    const long = await post(ctx.key, { emails: ['a@x.com'] }, 'k'.repeat(256));
    expect(long.status).toBe(400);
    expect(long.json).toMatchObject({ error: 'invalid_request', param: 'Idempotency-Key' });
    expect((await post(ctx.key, { emails: ['a@x.com'] }, 'k'.repeat(255))).status).toBe(200);
    const list = await call(bulk.GET, { key: ctx.key, path: BULK, headers: withKey('get-1') });
    expect(list.status).toBe(200);
    expect(await ctx.database.prisma.idempotencyKey.count({ where: { key: 'get-1' } })).toBe(0);
  });

  it('replays a webhook delivery as a new delivery with the same event', async () => {
    const received: { headers: Record<string, string>; body: string }[] = [];
    const server: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received.push({ headers: req.headers as Record<string, string>, body });
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    try {
      const hook = (await call(webhooks.POST, { key: ctx.key, body: { url } })).json;
      const second = (await call(webhooks.POST, { key: ctx.key, body: { url } })).json;
      const test = await call(webhookTest.POST, { key: ctx.key, params: { id: hook.id } });
      const otherTest = await call(webhookTest.POST, { key: ctx.key, params: { id: second.id } });
      expect(received).toHaveLength(2);

      const res = await call(replay.POST, { key: ctx.key, params: { id: hook.id, deliveryId: test.json.delivery_id } });
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({ success: true, state: 'succeeded', last_status: 200 });
      expect(res.json.delivery_id).not.toBe(test.json.delivery_id);
      expect(received).toHaveLength(3);
      expect(received[2]!.body).toBe(received[0]!.body);
      expect(received[2]!.headers['webhook-id']).toBe(test.json.event_id);
      expect(new Webhook(hook.secret).verify(received[2]!.body, received[2]!.headers)).toMatchObject({ id: test.json.event_id, type: 'webhook.test' });
      const list = await call(deliveries.GET, { key: ctx.key, params: { id: hook.id } });
      expect(list.json.data.map((d: any) => d.event_id)).toEqual([test.json.event_id, test.json.event_id]);

      const notFound = [
        await call(replay.POST, { key: other.key, params: { id: hook.id, deliveryId: test.json.delivery_id } }),
        await call(replay.POST, { key: ctx.key, params: { id: hook.id, deliveryId: otherTest.json.delivery_id } }),
        await call(replay.POST, { key: ctx.key, params: { id: hook.id, deliveryId: 'dlv_nope' } }),
      ];
      expect(notFound.map((r) => [r.status, r.json.error])).toEqual(Array(3).fill([404, 'not_found']));
      expect(received).toHaveLength(3);
    } finally {
      server.close();
    }
  });
});
