import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureAccount } from '@/lib/accounts/users';
import { createApiKey } from '@/lib/accounts/keys';
import { setup, until } from '@/test/api/harness';
import { startReceiver, type HostileReceiver } from '@/test/peers/hostile-http';
import { startDueDeliveries } from './dispatch';
import { createWebhook, listDeliveries, sendTestEvent } from './manage';
import { bulkCompletedEvent, enqueueEvent } from './outbox';

// a job's completion as lib/jobs/worker/lifecycle.ts queues it, of a list with no rows
const EMPTY_SUMMARY = { total: 0, valid: 0, invalid: 0, unknown: 0, failed: 0, deliverable: 0, undeliverable: 0, risky: 0 };

// Receivers that answer slowly, hugely or never cost each attempt at most EV_WEBHOOK_TIMEOUT_MS and
// one of the endpoint's EV_WEBHOOK_PER_ENDPOINT slots; other accounts' deliveries go out meanwhile.
for (const dialect of ['sqlite', 'postgres'] as const) {
  describe(`hostile webhook receivers (${dialect})`, () => {
    let ctx: Awaited<ReturnType<typeof setup>>;
    const receivers: HostileReceiver[] = [];
    beforeAll(async () => {
      ctx = await setup(dialect, { EV_ALLOW_PRIVATE_NETWORKS: 'true', EV_WEBHOOK_TIMEOUT_MS: '1000', EV_WEBHOOK_PER_ENDPOINT: '2' });
    });
    afterAll(async () => {
      await Promise.all(receivers.map((r) => r.stop()));
      await ctx.teardown();
    });

    async function account(kind: Parameters<typeof startReceiver>[0], deliveries: number, options = {}) {
      const receiver = await startReceiver(kind, options);
      receivers.push(receiver);
      const user = await ensureAccount(ctx.database, `${kind}-${Math.random().toString(36).slice(2, 8)}@example.com`);
      await createApiKey(ctx.database, user.id, 'k');
      const hook = await createWebhook(ctx.database, user.id, { url: receiver.url });
      for (let i = 0; i < deliveries; i++) {
        await enqueueEvent(
          ctx.database.prisma,
          user.id,
          bulkCompletedEvent({ id: `job_${i}`, sandbox: true, totalEmails: 0 }, EMPTY_SUMMARY, new Date()),
          hook.id,
        );
      }
      return { receiver, user, hook };
    }

    it('bounds a trickling receiver by the attempt deadline, sends nothing twice, and lets another account through', async () => {
      const slow = await account('trickle', 30, { trickleMs: 200 });
      const good = await account('ok', 1);
      const started = Date.now();
      const attempts = await startDueDeliveries(ctx.database);
      // the neighbour's one delivery and two of the slow endpoint's thirty (its in-flight limit)
      expect(attempts).toHaveLength(3);
      const delivered = await until(
        () => listDeliveries(ctx.database, good.user.id, good.hook.id, true),
        (d) => d[0]?.state === 'succeeded',
        5000,
      );
      expect(delivered[0]).toMatchObject({ state: 'succeeded', lastStatus: 204 });
      // delivered while the slow endpoint's two attempts still hold their connections: it did not wait for them
      expect(slow.receiver.stats().openNow).toBe(2);
      await Promise.all(attempts);
      // ended by the attempt deadline (1 s): the receiver trickles forever (a bound that catches only a hang)
      expect(Date.now() - started).toBeLessThan(10_000);
      // the status line arrived, so the attempts count as delivered: the trickled body is never read
      const slowOnes = await listDeliveries(ctx.database, slow.user.id, slow.hook.id, true);
      expect(slowOnes.filter((d) => d.attempts > 0)).toHaveLength(2);
      // claimed while in flight: a second dispatcher round finds the other 28, not these two again
      const again = await startDueDeliveries(ctx.database);
      await Promise.all(again);
      const ids = slow.receiver.stats().ids;
      expect(new Set(ids).size).toBe(ids.length);
    });

    it('ends an attempt whose receiver never answers at the deadline, logged as a failure to retry', async () => {
      const silent = await account('slow-headers', 1);
      const started = Date.now();
      await Promise.all(await startDueDeliveries(ctx.database));
      expect(Date.now() - started).toBeLessThan(10_000); // the receiver never answers: any bound catches a missing deadline
      const [delivery] = await listDeliveries(ctx.database, silent.user.id, silent.hook.id, true);
      expect(delivery).toMatchObject({ state: 'pending', attempts: 1, lastStatus: null });
      expect(delivery!.lastError).toMatch(/timed out after 1000 ms/);
    });

    it('reads the status of a huge answer and not its gigabyte body', async () => {
      const huge = await account('huge', 1);
      await Promise.all(await startDueDeliveries(ctx.database));
      const [delivery] = await listDeliveries(ctx.database, huge.user.id, huge.hook.id, true);
      expect(delivery).toMatchObject({ state: 'succeeded', lastStatus: 200 });
      expect(huge.receiver.stats().bytesSent).toBeLessThan(64 * 1024 * 1024);
    });

    it('takes one delivery from every account before a second from any (fair across accounts)', async () => {
      const busy = await ensureAccount(ctx.database, `busy-${Math.random().toString(36).slice(2, 8)}@example.com`);
      for (let i = 0; i < 8; i++) {
        const receiver = await startReceiver('ok');
        receivers.push(receiver);
        const hook = await createWebhook(ctx.database, busy.id, { url: receiver.url });
        for (let j = 0; j < 5; j++)
          await enqueueEvent(
            ctx.database.prisma,
            busy.id,
            bulkCompletedEvent({ id: `job_${j}`, sandbox: true, totalEmails: 0 }, EMPTY_SUMMARY, new Date()),
            hook.id,
          );
      }
      const quiet = await account('ok', 1);
      process.env.EV_WEBHOOK_CONCURRENCY = '3';
      try {
        await Promise.all(await startDueDeliveries(ctx.database));
        const [mine] = await listDeliveries(ctx.database, quiet.user.id, quiet.hook.id, true);
        expect(mine).toMatchObject({ state: 'succeeded' }); // among the first three of 41
      } finally {
        delete process.env.EV_WEBHOOK_CONCURRENCY;
      }
    });

    it('answers a test delivery within the deadline even while the endpoint trickles', async () => {
      const slow = await account('trickle', 0, { trickleMs: 200 });
      const started = Date.now();
      const result = await sendTestEvent(ctx.database, slow.user.id, slow.hook.id, true);
      expect(Date.now() - started).toBeLessThan(10_000); // the body never ends: any bound catches waiting for it
      expect(result).toMatchObject({ state: 'succeeded', lastStatus: 200 });
    });
  });
}
