import { scrypt } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureAccount } from '@/lib/accounts/users';
import { setup } from '@/test/api/harness';
import { startDnsmasq, type DnsPeer } from '@/test/peers/dnsmasq';
import { startReceiver, type HostileReceiver } from '@/test/peers/hostile-http';
import { startDueDeliveries } from './dispatch';
import { createWebhook, deleteWebhook, listDeliveries, sendTestEvent } from './manage';
import { bulkCompletedEvent, enqueueEvent } from './outbox';
import { sendSigned } from './send';

// a job's completion as lib/jobs/worker/lifecycle.ts queues it, of a list with no rows
const EMPTY_SUMMARY = { total: 0, valid: 0, invalid: 0, unknown: 0, failed: 0, deliverable: 0, undeliverable: 0, risky: 0 };

/**
 * Issue 20: test and replay sends take the dispatcher's slots (per process, per account, per
 * endpoint, the last shared by every process on PostgreSQL), and webhook host names are resolved
 * by c-ares, off the thread pool sign-in's scrypt needs.
 */
for (const dialect of ['sqlite', 'postgres'] as const) {
  describe(`webhook sends share the limits (${dialect})`, () => {
    let ctx: Awaited<ReturnType<typeof setup>>;
    const receivers: HostileReceiver[] = [];
    beforeAll(async () => {
      ctx = await setup(dialect, {
        EV_ALLOW_PRIVATE_NETWORKS: 'true',
        EV_WEBHOOK_TIMEOUT_MS: '1500',
        EV_WEBHOOK_PER_ENDPOINT: '2',
        EV_WEBHOOK_PER_ACCOUNT: '3',
        EV_WEBHOOK_CONCURRENCY: '4',
      });
    });
    afterAll(async () => {
      await Promise.all(receivers.map((r) => r.stop()));
      await ctx.teardown();
    });

    async function endpoint(userId: string, kind: Parameters<typeof startReceiver>[0]) {
      const receiver = await startReceiver(kind);
      receivers.push(receiver);
      return { receiver, hook: await createWebhook(ctx.database, userId, { url: receiver.url }) };
    }
    const account = (name: string) => ensureAccount(ctx.database, `${name}-${Math.random().toString(36).slice(2, 8)}@example.com`);

    it("sends at most the endpoint's limit of test events at once and leaves the rest queued", async () => {
      const user = await account('tester');
      const { receiver, hook } = await endpoint(user.id, 'slow-headers');
      const results = await Promise.all(Array.from({ length: 4 }, () => sendTestEvent(ctx.database, user.id, hook.id, true)));
      const attempted = (await listDeliveries(ctx.database, user.id, hook.id, true)).filter((d) => d.attempts > 0);
      expect(attempted).toHaveLength(2);
      expect(results.filter((r) => r.state === 'pending')).toHaveLength(4);
      expect(receiver.stats().requests).toBe(2);
      // its queued events would take the next free slot in the next test
      await deleteWebhook(ctx.database, user.id, hook.id);
    });

    it("keeps one account's silent receivers from taking the slots another account's delivery needs", async () => {
      const noisy = await account('noisy');
      const hooks = await Promise.all([0, 1, 2].map(() => endpoint(noisy.id, 'slow-headers')));
      const quiet = await account('quiet');
      const good = await endpoint(quiet.id, 'ok');
      await enqueueEvent(
        ctx.database.prisma,
        quiet.id,
        bulkCompletedEvent({ id: 'job_q', sandbox: true, totalEmails: 0 }, EMPTY_SUMMARY, new Date()),
        good.hook.id,
      );
      // six test events at once over three silent endpoints: the account's limit lets three go
      const tests = hooks.flatMap(({ hook }) => [sendTestEvent(ctx.database, noisy.id, hook.id, true), sendTestEvent(ctx.database, noisy.id, hook.id, true)]);
      await new Promise((r) => setTimeout(r, 200));
      await Promise.all(await startDueDeliveries(ctx.database));
      const [delivered] = await listDeliveries(ctx.database, quiet.id, good.hook.id, true);
      expect(delivered).toMatchObject({ state: 'succeeded' });
      // delivered while the three silent attempts still hold the noisy account's slots: it did not wait for them
      expect(hooks.reduce((n, { receiver }) => n + receiver.stats().openNow, 0)).toBe(3);
      await Promise.all(tests);
      expect(hooks.reduce((n, { receiver }) => n + receiver.stats().requests, 0)).toBe(3);
    });

    it.runIf(dialect === 'postgres')("counts another process's sends to the endpoint (PostgreSQL leases)", async () => {
      const user = await account('fleet');
      const { receiver, hook } = await endpoint(user.id, 'ok');
      const expires = Date.now() + 60_000;
      for (const slot of [0, 1]) {
        await ctx.database.prisma.$executeRawUnsafe(
          `INSERT INTO webhook_leases (webhook_id, slot, holder, expires_at) VALUES ($1, $2, 'another-process', $3)`,
          hook.id,
          slot,
          expires,
        );
      }
      const held = await sendTestEvent(ctx.database, user.id, hook.id, true);
      expect(held.state).toBe('pending');
      expect(receiver.stats().requests).toBe(0);
      await ctx.database.prisma.$executeRawUnsafe(`DELETE FROM webhook_leases WHERE holder = 'another-process'`);
      const sent = await sendTestEvent(ctx.database, user.id, hook.id, true);
      expect(sent).toMatchObject({ state: 'succeeded', lastStatus: 204 });
    });
  });
}

describe('webhook host names', () => {
  let dns: DnsPeer;
  let silent: ReturnType<typeof createSocket>;
  let receiver: HostileReceiver;
  let ctx: Awaited<ReturnType<typeof setup>>;
  beforeAll(async () => {
    receiver = await startReceiver('ok');
    dns = await startDnsmasq(['host-record=hooks.test,127.0.0.1']);
    // a name server that takes every query and never answers
    silent = createSocket('udp4');
    await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    silent.close();
    await dns.stop();
    await receiver.stop();
    await ctx?.teardown();
  });

  it('are resolved by the configured name servers (c-ares), then the checked address is connected to', async () => {
    ctx = await setup('sqlite', { EV_DNS_SERVERS: dns.server, EV_ALLOW_PRIVATE_NETWORKS: 'true' });
    const url = receiver.url.replace('127.0.0.1', 'hooks.test');
    const result = await sendSigned(url, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_1', '{}', { allowPrivate: true, timeoutMs: 3000 });
    expect(result).toMatchObject({ status: 204, error: null });
  });

  const fourHashes = () =>
    Promise.all(Array.from({ length: 4 }, () => new Promise((resolve, reject) => scrypt('password', 'salt', 32, (e, key) => (e ? reject(e) : resolve(key))))));

  it('wait on a silent name server without holding the thread pool scrypt needs', async () => {
    await ctx.teardown();
    ctx = await setup('sqlite', { EV_DNS_SERVERS: `127.0.0.1:${silent.address().port}`, EV_ALLOW_PRIVATE_NETWORKS: 'true' });
    // more stuck lookups than libuv has threads (4): with dns.lookup every scrypt would queue behind them
    const sends = Array.from({ length: 8 }, (_, i) =>
      sendSigned(`http://hang${i}.example:8080/`, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', `msg_${i}`, '{}', { allowPrivate: true, timeoutMs: 1500 }),
    );
    await new Promise((r) => setTimeout(r, 100));
    let sendsEnded = 0;
    for (const send of sends) void send.then(() => sendsEnded++);
    await fourHashes();
    // stuck behind the lookups, the hashes would wait for the sends' 1.5 s deadline: they finish first
    expect(sendsEnded).toBe(0);
    const results = await Promise.all(sends);
    expect(results.every((r) => r.status === null && r.error !== null)).toBe(true);
    // ended by their deadline: the name server never answers (a bound that catches only a hang)
    expect(Math.max(...results.map((r) => r.durationMs))).toBeLessThan(10_000);
  });
});
