import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as quota from '@/app/v1/account/quota/route';
import * as single from '@/app/v1/verify/single/route';
import * as bulk from '@/app/v1/verify/bulk/route';
import * as webhooks from '@/app/v1/webhooks/route';
import { grantCredits } from '@/lib/accounts/quota';
import { EXCEEDED_EVERY_MS, noteQuotaExceeded } from '@/lib/accounts/quota-events';
import { dispatchDueDeliveries } from '@/lib/webhooks/dispatch';
import { DIALECTS } from '../databases';
import { call, setup } from './harness';

/** A real receiver on loopback that keeps what it is sent and answers 204. */
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

describe.each(DIALECTS)('quota events on %s', (dialect) => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  let peer: Awaited<ReturnType<typeof receiver>>;
  let secret: string;
  let n = 0;

  beforeAll(async () => {
    // production checks through the sandbox engine: the real quota path without DNS or SMTP
    ctx = await setup(dialect, {
      EV_PRODUCTION_ENGINE: 'sandbox',
      EV_FREE_DAILY: '3',
      EV_ALLOW_PRIVATE_NETWORKS: 'true',
      EV_ALLOW_PLACEHOLDER_IDENTITY: 'true',
      EV_RATE_LIMIT_PER_MINUTE: '1000',
    });
    peer = await receiver();
    const hook = await call(webhooks.POST, { key: ctx.key, body: { url: peer.url, events: ['quota.warning', 'quota.exceeded'] } });
    secret = hook.json.secret;
  });
  afterAll(async () => {
    await peer.close();
    await ctx.teardown();
  });

  const check = (sandbox = false) => call(single.POST, { key: ctx.key, sandbox, body: { email: `valid.${n++}@example.com` } });
  /** Sends what is due and returns the events received since `from`, each verified as Standard Webhooks says. */
  async function eventsFrom(from: number) {
    await dispatchDueDeliveries(ctx.database);
    const verifier = new Webhook(secret);
    return peer.received
      .slice(from)
      .map(({ headers, body }) => verifier.verify(body, headers) as { id: string; type: string; sandbox: boolean; data: Record<string, unknown> });
  }

  it('uses the documented default until the account sets its own threshold', async () => {
    const state = await call(quota.GET, { key: ctx.key, sandbox: false });
    expect(state.json).toMatchObject({ warning_below: 50, warning_below_is_default: true, remaining: 3, below: true, exceeded_at: null });
    const set = await call(quota.POST, { key: ctx.key, sandbox: false, body: { warning_below: 2 } });
    expect(set.json).toMatchObject({ warning_below: 2, warning_below_is_default: false, below: false });
    expect((await call(quota.POST, { key: ctx.key, body: { warning_below: -1 } })).status).toBe(400);
  });

  it('sends quota.warning once per crossing and quota.exceeded at most once an hour, signed', async () => {
    const from = peer.received.length;
    expect((await check()).status).toBe(200); // 2 left: not below 2
    expect(await eventsFrom(from)).toEqual([]);
    expect((await check()).status).toBe(200); // 1 left: below
    expect((await check()).status).toBe(200); // 0 left: still below, already warned
    expect((await check(true)).status).toBe(200); // the sandbox has no quota
    const warned = await eventsFrom(from);
    expect(warned.map((e) => e.type)).toEqual(['quota.warning']);
    expect(warned[0]).toMatchObject({ sandbox: false, data: { remaining: 1, credits: 0, free_remaining_today: 1, warning_below: 2 } });

    const refused = await check();
    expect(refused.status).toBe(402);
    expect((await call(bulk.POST, { key: ctx.key, sandbox: false, body: { emails: ['valid.a@example.com', 'valid.b@example.com'] } })).status).toBe(402);
    const exceeded = await eventsFrom(from + 1);
    expect(exceeded.map((e) => e.type)).toEqual(['quota.exceeded']); // the second refusal within the hour sends nothing
    expect(exceeded[0]!.data).toMatchObject({ required: 1, credits: 0, free_remaining_today: 0 });
    const state = (await call(quota.GET, { key: ctx.key, sandbox: false })).json;
    expect(state).toMatchObject({ remaining: 0, below: true });
    expect(Date.parse(state.exceeded_at)).toBe(Date.parse(exceeded[0]!.data.refused_at as string));
    // an hour later a refusal is worth telling again
    await noteQuotaExceeded(ctx.database, ctx.account.id, { required: 1, credits: 0, free_remaining_today: 0 }, Date.now() + EXCEEDED_EVERY_MS + 1);
    expect((await eventsFrom(from + 2)).map((e) => e.type)).toEqual(['quota.exceeded']);
  });

  it('warns again only after the balance was seen back above the threshold', async () => {
    const from = peer.received.length;
    await grantCredits(ctx.database, ctx.account.id, 3);
    expect((await check()).status).toBe(200); // 2 left: back at the threshold, re-armed
    expect(await eventsFrom(from)).toEqual([]);
    expect((await check()).status).toBe(200); // 1 left: a new crossing
    const events = await eventsFrom(from);
    expect(events.map((e) => e.type)).toEqual(['quota.warning']);
    expect(events[0]!.data).toMatchObject({ remaining: 1, credits: 1 });
  });
});
