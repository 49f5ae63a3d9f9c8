import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as account from '@/app/v1/account/route';
import * as bulk from '@/app/v1/verify/bulk/route';
import * as keys from '@/app/v1/keys/route';
import * as keyById from '@/app/v1/keys/[id]/route';
import * as webhooks from '@/app/v1/webhooks/route';
import * as webhookById from '@/app/v1/webhooks/[id]/route';
import * as webhookTest from '@/app/v1/webhooks/[id]/test/route';
import * as replay from '@/app/v1/webhooks/[id]/deliveries/[deliveryId]/replay/route';
import { ensureAccount } from '@/lib/accounts/users';
import { createApiKey } from '@/lib/accounts/keys';
import { pruneRateWindows } from '@/lib/api/rate-store';
import { newId } from '@/lib/db/ids';
import { DIALECTS } from '../databases';
import { call, setup, type Call } from './harness';
import { scriptArgs } from '../scripts';
import { db } from '@/lib/db/client';

const LIMITS = {
  EV_CREATE_RATE_PER_MINUTE: '6',
  EV_SANDBOX_JOBS_PER_HOUR: '3',
  EV_MAX_WEBHOOKS_PER_ACCOUNT: '3',
  EV_MAX_ACTIVE_KEYS_PER_ACCOUNT: '10',
  EV_ALLOW_PRIVATE_NETWORKS: 'true',
};

/** Fixed one-minute windows: start a count well inside one, so it cannot roll over mid-test. */
async function freshMinute(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 15_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

async function newAccountKey(): Promise<{ userId: string; key: string }> {
  const user = await ensureAccount(await db(), `caps-${Math.random().toString(36).slice(2, 10)}@example.com`);
  return { userId: user.id, key: (await createApiKey(await db(), user.id, 'first')).key };
}

const hook = (n: number) => ({ url: `http://127.0.0.1:9999/hook-${n}` });
const emails = (n: number) => Array.from({ length: n }, (_, i) => `user${i}@example.com`);

describe.each(DIALECTS)('abuse limits per account on %s', (dialect) => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  beforeAll(async () => {
    ctx = await setup(dialect, LIMITS);
  });
  afterAll(async () => ctx.teardown());

  it('refuses the creation past the rate in both modes, whichever key, with 429 rate_limit and Retry-After', async () => {
    await freshMinute();
    const { userId, key } = await newAccountKey();
    const second = (await createApiKey(ctx.database, userId, 'second')).key;
    const created = [
      await call(keys.POST, { key, body: { name: 'a' } }),
      await call(keys.POST, { key: second, body: { name: 'b' } }),
      await call(webhooks.POST, { key, body: hook(1) }),
      await call(webhooks.POST, { key: second, body: hook(2), sandbox: false }),
      await call(bulk.POST, { key, body: { emails: emails(11) } }), // queued: a creation
      await call(keys.POST, { key, body: { name: 'c' }, sandbox: false }),
    ];
    expect(created.map((r) => r.status)).toEqual([201, 201, 201, 201, 200, 201]);
    // ordinary sandbox requests carry the simulated headers and are never refused
    expect(created[0]!.headers.get('x-ratelimit-limit')).toBe('1000');
    for (const sandbox of [true, false]) {
      const refused = await call(keys.POST, { key: second, body: { name: 'over' }, sandbox });
      expect(refused.status).toBe(429);
      expect(refused.json).toMatchObject({ error: 'rate_limit', limit: 6, retry_after: expect.any(Number) });
      expect(refused.headers.get('retry-after')).toBe(String(refused.json.retry_after));
      expect(refused.json.retry_after).toBeGreaterThan(0);
      expect(refused.json.retry_after).toBeLessThanOrEqual(60);
      expect(refused.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
    }
    const hooks = await call(webhooks.POST, { key, body: hook(3) });
    expect([hooks.status, hooks.json.error]).toEqual([429, 'rate_limit']);
    const list = await call(keys.GET, { key });
    expect(list.status).toBe(200);
    expect(list.json.data).toHaveLength(5); // first, second, a, b, c: the refused ones wrote nothing
    // another account is not affected
    const other = await newAccountKey();
    expect((await call(keys.POST, { key: other.key, body: { name: 'x' } })).status).toBe(201);
  });

  it('counts webhook test and replay deliveries in the creation rate', async () => {
    await freshMinute();
    const { key } = await newAccountKey();
    const created = await call(webhooks.POST, { key, body: hook(1) });
    const params = { id: created.json.id };
    const tests = [];
    for (let n = 0; n < 4; n++) tests.push(await call(webhookTest.POST, { key, method: 'POST', params }));
    expect(tests.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const replayed = await call(replay.POST, { key, method: 'POST', params: { ...params, deliveryId: tests[0]!.json.delivery_id } });
    expect(replayed.status).toBe(200);
    const refused = [
      await call(webhookTest.POST, { key, method: 'POST', params }),
      await call(replay.POST, { key, method: 'POST', params: { ...params, deliveryId: tests[0]!.json.delivery_id } }),
    ];
    expect(refused.map((r) => [r.status, r.json.error])).toEqual([
      [429, 'rate_limit'],
      [429, 'rate_limit'],
    ]);
    expect(await ctx.database.prisma.webhookDelivery.count({ where: { webhookId: params.id } })).toBe(5);
  });

  it('caps webhooks per account with 409 limit_reached, freed by a delete', async () => {
    const { key } = await newAccountKey();
    const answers = [];
    for (let n = 0; n < 4; n++) answers.push(await call(webhooks.POST, { key, body: hook(n) }));
    expect(answers.map((r) => r.status)).toEqual([201, 201, 201, 409]);
    expect(answers[3]!.json).toMatchObject({ error: 'limit_reached', limit: 3 });
    expect(answers[3]!.json.message).toMatch(/webhooks/);
    const del = await call(webhookById.DELETE, { key, method: 'DELETE', params: { id: answers[0]!.json.id } });
    expect(del.status).toBe(200);
    expect((await call(webhooks.POST, { key, body: hook(9) })).status).toBe(201);
    expect((await call(webhooks.GET, { key })).json.data).toHaveLength(3);
  });

  it('holds the webhook cap under concurrent creations', async () => {
    await freshMinute();
    const { key } = await newAccountKey();
    const answers = await Promise.all(Array.from({ length: 6 }, (_, n) => call(webhooks.POST, { key, body: hook(n) })));
    expect(answers.filter((r) => r.status === 201)).toHaveLength(3);
    expect(answers.filter((r) => r.status === 409 && r.json.error === 'limit_reached')).toHaveLength(3);
    expect((await call(webhooks.GET, { key })).json.data).toHaveLength(3);
  });

  it('caps active keys per account; a revoked key frees its place', async () => {
    const { userId, key } = await newAccountKey();
    const made = [];
    for (let n = 1; n < 10; n++) made.push(await createApiKey(ctx.database, userId, `k${n}`));
    const refused = await call(keys.POST, { key, body: { name: 'eleventh' }, sandbox: false });
    expect(refused.status).toBe(409);
    expect(refused.json).toMatchObject({ error: 'limit_reached', limit: 10 });
    const revoked = await call(keyById.DELETE, { key, method: 'DELETE', params: { id: made[0]!.info.id } });
    expect(revoked.status).toBe(200);
    const created = await call(keys.POST, { key, body: { name: 'tenth again' } });
    expect(created.status).toBe(201);
    expect(created.json.key).toMatch(/^ev_live_/);
  });

  it('budgets sandbox jobs per hour, instant ones included; a refusal is not replayed to an Idempotency-Key', async () => {
    const { key } = await newAccountKey();
    const answers = [];
    for (let n = 0; n < 3; n++) answers.push(await call(bulk.POST, { key, body: { emails: emails(n === 0 ? 11 : 2) } }));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200]);
    const refused = await call(bulk.POST, { key, body: { emails: emails(2) }, headers: { 'idempotency-key': 'budget-1' } });
    expect(refused.status).toBe(429);
    expect(refused.json).toMatchObject({ error: 'rate_limit', limit: 3 });
    expect(refused.json.retry_after).toBeGreaterThan(0);
    expect(refused.json.retry_after).toBeLessThanOrEqual(3600);
    expect(refused.headers.get('retry-after')).toBe(String(refused.json.retry_after));
    const retried = await call(bulk.POST, { key, body: { emails: emails(2) }, headers: { 'idempotency-key': 'budget-1' } });
    expect(retried.status).toBe(429);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    // the sandbox trigger still answers as documented, outside the budget
    const trigger = await call(bulk.POST, { key, body: { emails: ['error-ratelimit@x.com'] } });
    expect([trigger.status, trigger.json.retry_after]).toEqual([429, 60]);
    const jobs = await call(bulk.GET, { key });
    expect(jobs.json.data).toHaveLength(3);
  });

  it('counts windows in rate_windows with the database store, and prunes the ended ones', async () => {
    process.env.EV_RATE_LIMIT_STORE = 'database';
    try {
      const { userId, key } = await newAccountKey();
      expect((await call(keys.POST, { key, body: { name: 'a' } })).status).toBe(201);
      const rows = await ctx.database.prisma.rateWindow.findMany({ where: { subject: `create:${userId}` } });
      expect(rows.map((r) => [r.count, Number(r.expiresAt - r.windowStart)])).toEqual([[1, 60_000]]);
      const now = Date.now();
      await ctx.database.prisma.rateWindow.create({
        data: { subject: 'ended', windowStart: BigInt(now - 120_000), count: 5, expiresAt: BigInt(now - 60_000) },
      });
      // earlier tests' windows may have ended by now too (a slow run): all ended ones go, no live one
      const live = await ctx.database.prisma.rateWindow.count({ where: { expiresAt: { gte: BigInt(now) } } });
      expect(await pruneRateWindows(ctx.database, now)).toBeGreaterThanOrEqual(1);
      expect(await ctx.database.prisma.rateWindow.count({ where: { expiresAt: { lt: BigInt(now) } } })).toBe(0);
      expect(await ctx.database.prisma.rateWindow.count({ where: { expiresAt: { gte: BigInt(now) } } })).toBe(live);
      expect(await ctx.database.prisma.rateWindow.count({ where: { subject: 'ended' } })).toBe(0);
      expect(await ctx.database.prisma.rateWindow.count({ where: { subject: `create:${userId}` } })).toBe(1);
    } finally {
      delete process.env.EV_RATE_LIMIT_STORE;
    }
  });

  it('bounds the fan-out of one job completion by the webhook cap, even past it', async () => {
    const { userId, key } = await newAccountKey();
    // 3 through the API, 5 more written directly as an account from before the cap would have them
    for (let n = 0; n < 3; n++) expect((await call(webhooks.POST, { key, body: hook(n) })).status).toBe(201);
    for (let n = 0; n < 5; n++) {
      await ctx.database.prisma.webhook.create({
        data: { id: newId('wh'), userId, url: `http://127.0.0.1:9999/old-${n}`, secret: 'whsec_x', events: '["bulk.completed","bulk.failed"]' },
      });
    }
    const instant = await call(bulk.POST, { key, body: { emails: emails(2) } });
    expect(instant.json.status).toBe('completed');
    const deliveries = await ctx.database.prisma.webhookDelivery.count({ where: { webhook: { userId } } });
    expect(deliveries).toBe(3);
  });
});

/** An HTTP request to the second instance, read as `call` reads the in-process one. */
async function httpCall(port: number, path: string, options: Call = {}) {
  const headers: Record<string, string> = { authorization: `Bearer ${options.key}` };
  if (options.sandbox ?? true) headers['x-ev-sandbox'] = 'true';
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, json: JSON.parse(text) };
}

async function startInstance(env: Record<string, string>): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, scriptArgs('test/api/instance.ts'), {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`instance exited with ${code}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const match = /^listening (\d+)$/.exec(line);
      if (match) resolve(Number(match[1]));
    });
  });
  return { child, port };
}

const CLUSTERS = [
  { dialect: 'postgres', store: 'database' },
  { dialect: 'postgres', store: 'redis' },
  { dialect: 'sqlite', store: 'redis' },
] as const;

describe.each(CLUSTERS)('two server instances on $dialect, rate store $store', ({ dialect, store }) => {
  const env = {
    ...LIMITS,
    EV_RATE_LIMIT_PER_MINUTE: '10',
    EV_CREATE_RATE_PER_MINUTE: '4',
    EV_RATE_LIMIT_STORE: store,
    EV_REDIS_URL: store === 'redis' ? (process.env.EV_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379') : '',
  };
  let ctx: Awaited<ReturnType<typeof setup>>;
  let other: { child: ChildProcess; port: number };
  beforeAll(async () => {
    ctx = await setup(dialect, env);
    other = await startInstance({ ...env, DATABASE_URL: process.env.DATABASE_URL! });
  });
  afterAll(async () => {
    other?.child.kill();
    await ctx.teardown();
  });

  it("counts one key's requests across both: the headers are true and the 11th is refused on either", async () => {
    await freshMinute();
    const { key } = await newAccountKey();
    const remaining = [];
    for (let n = 0; n < 10; n++) {
      const answer = n % 2 === 0 ? await call(account.GET, { key, sandbox: false }) : await httpCall(other.port, '/v1/account', { key, sandbox: false });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('x-ratelimit-limit')).toBe('10');
      remaining.push(Number(answer.headers.get('x-ratelimit-remaining')));
    }
    expect(remaining).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    for (const refused of [await httpCall(other.port, '/v1/account', { key, sandbox: false }), await call(account.GET, { key, sandbox: false })]) {
      expect(refused.status).toBe(429);
      expect(refused.json).toMatchObject({ error: 'rate_limit' });
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    }
  });

  it('hands concurrent requests on both each their own place in the window', async () => {
    await freshMinute();
    const { key } = await newAccountKey();
    const answers = await Promise.all(
      Array.from({ length: 14 }, (_, n) =>
        n % 2 === 0 ? call(account.GET, { key, sandbox: false }) : httpCall(other.port, '/v1/account', { key, sandbox: false }),
      ),
    );
    const served = answers.filter((a) => a.status === 200);
    expect(served).toHaveLength(10);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(4);
    expect(served.map((a) => Number(a.headers.get('x-ratelimit-remaining'))).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it("counts an account's sandbox creations across both", async () => {
    await freshMinute();
    const { key } = await newAccountKey();
    const statuses = [];
    for (let n = 0; n < 4; n++) {
      const answer =
        n % 2 === 0 ? await httpCall(other.port, '/v1/keys', { key, body: { name: `k${n}` } }) : await call(keys.POST, { key, body: { name: `k${n}` } });
      statuses.push(answer.status);
    }
    expect(statuses).toEqual([201, 201, 201, 201]);
    const refused = await httpCall(other.port, '/v1/webhooks', { key, body: hook(1) });
    expect(refused.status).toBe(429);
    expect(refused.json).toMatchObject({ error: 'rate_limit', limit: 4 });
    expect((await call(keys.POST, { key, body: { name: 'over' } })).status).toBe(429);
  });
});

describe('Redis unreachable', () => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  beforeAll(async () => {
    // a port nothing listens on: connections are refused at once
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    ctx = await setup('sqlite', { EV_RATE_LIMIT_PER_MINUTE: '3', EV_REDIS_URL: `redis://127.0.0.1:${port}` });
  });
  afterAll(async () => ctx.teardown());

  it('serves requests and still limits them, counted in this process', async () => {
    await freshMinute();
    const statuses = [];
    for (let n = 0; n < 4; n++) statuses.push((await call(account.GET, { key: ctx.key, sandbox: false })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });
});
