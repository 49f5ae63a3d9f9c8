import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setup } from '@/test/api/harness';
import { dispatchDueDeliveries } from './dispatch';
import { createWebhook, listDeliveries } from './manage';
import { bulkCompletedEvent, enqueueEvent } from './outbox';

// a job's completion as lib/jobs/worker/lifecycle.ts queues it, of a list with no rows
const EMPTY_SUMMARY = { total: 0, valid: 0, invalid: 0, unknown: 0, failed: 0, deliverable: 0, undeliverable: 0, risky: 0 };

type Answer = (req: IncomingMessage, res: ServerResponse) => void;

/** A real receiver on loopback that answers each request with the next of `answers` (the last repeats). */
async function receiver(answers: Answer[]) {
  const bodies: { headers: Record<string, string>; body: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      bodies.push({ headers: req.headers as Record<string, string>, body });
      answers[Math.min(bodies.length, answers.length) - 1]!(req, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, bodies, close: () => server.close() };
}

// Standard Webhooks: the first attempt at once, then retries 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h later.
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const RETRIES_MS = [5_000, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 14 * HOUR, 20 * HOUR, 24 * HOUR];

const status =
  (code: number): Answer =>
  (_req, res) =>
    res.writeHead(code).end();
const hangUp: Answer = (req) => req.socket.destroy();

describe('webhook dispatch', () => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  beforeAll(async () => {
    ctx = await setup('sqlite', { EV_ALLOW_PRIVATE_NETWORKS: 'true' });
  });
  afterAll(() => ctx.teardown());

  async function subscribe(url: string) {
    const hook = await createWebhook(ctx.database, ctx.account.id, { url });
    const event = bulkCompletedEvent({ id: 'job_x', sandbox: false, totalEmails: 12 }, EMPTY_SUMMARY, new Date());
    await enqueueEvent(ctx.database.prisma, ctx.account.id, event, hook.id);
    const delivery = () => listDeliveries(ctx.database, ctx.account.id, hook.id, false).then((d) => d[0]!);
    return { hook, event, delivery };
  }

  it('delivers after a receiver fails the first attempts, signed the same each time, every attempt logged', async () => {
    const peer = await receiver([status(503), hangUp, status(204)]);
    try {
      const { hook, event, delivery } = await subscribe(peer.url);
      expect(await dispatchDueDeliveries(ctx.database)).toBe(1);
      expect((await delivery()).state).toBe('pending');
      // Not due again before its 5 s retry...
      expect(await dispatchDueDeliveries(ctx.database, Date.now() + 4_000)).toBe(0);
      // ...then the receiver hangs up without answering, and the next retry is 5 min later.
      expect(await dispatchDueDeliveries(ctx.database, Date.now() + 5_600)).toBe(1);
      expect(await dispatchDueDeliveries(ctx.database, Date.now() + 260_000)).toBe(0);
      expect(await dispatchDueDeliveries(ctx.database, Date.now() + 331_000)).toBe(1);

      const done = await delivery();
      expect(done).toMatchObject({ state: 'succeeded', attempts: 3, lastStatus: 204 });
      expect(done.attemptLog.map((a) => a.status)).toEqual([503, null, 204]);
      expect(done.attemptLog[1]!.error).toBeTruthy();
      expect(peer.bodies).toHaveLength(3);
      const verifier = new Webhook(hook.secret);
      for (const sent of peer.bodies) {
        expect(verifier.verify(sent.body, sent.headers)).toEqual(event);
        expect(sent.headers['webhook-id']).toBe(event.id);
      }
      // Delivered: nothing is sent again, however late.
      expect(await dispatchDueDeliveries(ctx.database, Date.now() + 10 * 86_400_000)).toBe(0);
    } finally {
      peer.close();
    }
  });

  it('follows the Standard Webhooks schedule with jitter, then gives up after the tenth attempt', async () => {
    const peer = await receiver([status(500)]);
    try {
      const { delivery } = await subscribe(peer.url);
      const { prisma } = ctx.database;
      let due = Date.now();
      for (let attempt = 1; attempt <= RETRIES_MS.length + 1; attempt++) {
        const before = Date.now();
        expect(await dispatchDueDeliveries(ctx.database, due)).toBe(1);
        const row = (await prisma.webhookDelivery.findFirst({ where: { webhook: { url: peer.url } } }))!;
        expect(row.attempts).toBe(attempt);
        if (attempt > RETRIES_MS.length) break;
        const delay = Number(row.nextAttemptAt) - before;
        const planned = RETRIES_MS[attempt - 1]!;
        expect(delay).toBeGreaterThanOrEqual(planned * 0.9 - 50);
        expect(delay).toBeLessThanOrEqual(planned * 1.1 + 1_000);
        due = Number(row.nextAttemptAt);
      }
      const last = await delivery();
      expect(last).toMatchObject({ state: 'failed', attempts: 10, lastStatus: 500 });
      expect(last.attemptLog).toHaveLength(10);
      expect(await dispatchDueDeliveries(ctx.database, Date.now() + 30 * 86_400_000)).toBe(0);
      expect(peer.bodies).toHaveLength(10);
    } finally {
      peer.close();
    }
  });
});
