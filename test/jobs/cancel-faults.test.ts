import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureAccount } from '@/lib/accounts/users';
import { grantCredits } from '@/lib/accounts/quota';
import { q } from '@/lib/db/sql';
import { cancelJob } from '@/lib/jobs/worker/lifecycle';
import { submitQueued } from '@/lib/jobs/intake/submit';
import { DIALECTS } from '../databases';
import { setup } from '../api/harness';
import { startCountingSmtp, type CountingSmtp } from '../peers/counting-smtp';
import { startDnsmasq, type DnsPeer } from '../peers/dnsmasq';
import { booksOf, startWorkerProcess, waitFor } from './processes';

// Cancel stops the work and bills what was done (issue 19, item 3): a real worker process probes a
// slow mail server (every reply 150 ms late) when the job is cancelled mid-chunk.
const MX = '127.0.0.61';
const CREDITS = 1000;
const COUNT = 40;

let dns: DnsPeer;
let smtp: CountingSmtp;
beforeAll(async () => {
  dns = await startDnsmasq(['mx-host=slow.test,mx.slow.test,10', `host-record=mx.slow.test,${MX}`]);
  smtp = await startCountingSmtp({ hosts: [MX], replyDelayMs: 150 });
});
afterAll(async () => {
  await smtp?.stop();
  await dns?.stop();
});

describe.each(DIALECTS)('cancel mid-chunk (%s)', (dialect) => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  beforeAll(async () => {
    ctx = await setup(dialect, { EV_CHUNK_SIZE: String(COUNT), EV_FREE_DAILY: '0' });
  });
  afterAll(async () => ctx?.teardown());

  it('stops probing at once, stores nothing after the cancel, never marks the chunk done, and refunds the rest', async () => {
    const account = await ensureAccount(ctx.database, `cancel-${dialect}@example.com`);
    await grantCredits(ctx.database, account.id, CREDITS);
    const worker = await startWorkerProcess({
      DATABASE_URL: process.env.DATABASE_URL!,
      EV_DNS_SERVERS: dns.server,
      EV_SMTP_PORT: String(smtp.port),
      EV_ALLOW_PRIVATE_NETWORKS: 'true',
      EV_HELO_NAME: 'verifier.test',
      EV_MAIL_FROM: 'check@verifier.test',
      EV_WORKER_CONCURRENCY: '3',
      EV_CHUNK_SIZE: String(COUNT),
    });
    try {
      const since = performance.now();
      const emails = Array.from({ length: COUNT }, (_, i) => `ok${dialect}${i}@slow.test`);
      const { jobId } = await submitQueued(ctx.database, { userId: account.id, sandbox: false, emails });
      const opened = () => smtp.connections.filter((c) => c.openedAt >= since);
      await waitFor(
        async () => opened().length,
        (n) => n >= 6,
        30_000,
        'connections opened',
      );
      await cancelJob(ctx.database, account.id, jobId, false);
      const cancelledAt = performance.now();
      // conversations already started may end; none may start once the cancel is seen (well under the 20 s heartbeat)
      await new Promise((r) => setTimeout(r, 4_000));
      const late = opened().filter((c) => c.openedAt > cancelledAt + 1_000);
      expect(late).toEqual([]);
      expect(opened().length).toBeLessThan(COUNT);

      const [chunk] = await ctx.database.prisma.$queryRawUnsafe<{ state: string }[]>(q(dialect, 'SELECT state FROM job_chunks WHERE job_id = ?'), jobId);
      expect(chunk!.state).toBe('cancelled');
      const books = await booksOf(ctx.database, account.id, jobId, CREDITS);
      // never stored and free (the rows ?partial=true serves): whatever is stored was charged
      expect(books.paid).toBe(books.chargeable);
      expect(books.stored).toBe(books.distinct);
    } finally {
      await worker.kill('SIGTERM');
    }
  }, 90_000);
});
