import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureAccount } from '@/lib/accounts/users';
import { grantCredits } from '@/lib/accounts/quota';
import type { Database } from '@/lib/db/client';
import { q } from '@/lib/db/sql';
import { submitQueued } from '@/lib/jobs/intake/submit';
import { JobWorker } from '@/lib/jobs/worker/worker';
import { createDnsResolver } from '@/lib/verifier/dns';
import { createVerifier } from '@/lib/verifier/verify';
import { setup } from '../api/harness';
import { startCountingSmtp, type CountingSmtp } from '../peers/counting-smtp';
import { startDnsmasq, type DnsPeer } from '../peers/dnsmasq';
import type { PrivatePostgres } from '../peers/postgres';
import { booksOf, jobStatusOf, restartableDatabase, startWorkerProcess, waitFor } from './processes';

// Transient failures are retries, not verdicts (issue 19, item 6): our database restarting under a
// running job, and a resolver that times out, hand the address back; only a mail server's answer,
// or the job's retry budget running out, makes a verdict.
const MX = '127.0.0.62';
const CREDITS = 1000;

let dns: DnsPeer;
let smtp: CountingSmtp;
beforeAll(async () => {
  dns = await startDnsmasq(['mx-host=outage.test,mx.outage.test,10', `host-record=mx.outage.test,${MX}`]);
  smtp = await startCountingSmtp({ hosts: [MX], replyDelayMs: 40 });
});
afterAll(async () => {
  await smtp?.stop();
  await dns?.stop();
});

const verdicts = async ({ prisma, dialect }: Database, jobId: string) =>
  prisma.$queryRawUnsafe<{ email: string; status: string; sub_reason: string | null }[]>(
    q(dialect, 'SELECT email, status, sub_reason FROM verifications WHERE job_id = ?'),
    jobId,
  );

describe('PostgreSQL restarted mid-job (a private server)', () => {
  let pg: PrivatePostgres;
  let database: Database;
  let url: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ pg, url, database, close } = await restartableDatabase({ EV_CHUNK_SIZE: '10', EV_FREE_DAILY: '0' }));
  }, 60_000);
  afterAll(async () => close?.());

  it("gives no address a verdict it did not earn: every one is the mail server's answer", async () => {
    const account = await ensureAccount(database, 'outage@example.com');
    await grantCredits(database, account.id, CREDITS);
    const emails = Array.from({ length: 80 }, (_, i) => `${i % 3 ? 'ok' : 'no'}${i}@outage.test`);
    const worker = await startWorkerProcess({
      DATABASE_URL: url,
      EV_DNS_SERVERS: dns.server,
      EV_SMTP_PORT: String(smtp.port),
      EV_ALLOW_PRIVATE_NETWORKS: 'true',
      EV_HELO_NAME: 'verifier.test',
      EV_MAIL_FROM: 'check@verifier.test',
      EV_WORKER_CONCURRENCY: '8',
      EV_CHUNK_SIZE: '10',
      EV_LEASE_MS: '3000',
      EV_TRANSIENT_RETRY_MS: '500',
      EV_SMTP_PACING: 'mx:mx.outage.test=8/0',
    });
    try {
      const { jobId } = await submitQueued(database, { userId: account.id, sandbox: false, emails });
      await waitFor(
        async () => (await verdicts(database, jobId)).length,
        (n) => n >= 10,
        60_000,
        'results before the restart',
      );
      await pg.restart();
      const settled = async () => {
        try {
          return await jobStatusOf(database, jobId);
        } catch {
          return 'unreachable';
        }
      };
      await waitFor(settled, (s) => s === 'completed' || s === 'failed', 120_000, 'job status after the restart');
      const rows = await verdicts(database, jobId);
      expect(rows).toHaveLength(emails.length);
      const wrong = rows.filter((r) => r.status !== (r.email.startsWith('ok') ? 'deliverable' : 'undeliverable'));
      expect(wrong.map((r) => [r.email, r.status, r.sub_reason])).toEqual([]);
      const books = await booksOf(database, account.id, jobId, CREDITS);
      expect(books).toMatchObject({ stored: emails.length, distinct: emails.length });
      expect(books.paid).toBe(books.chargeable);
    } finally {
      await worker.kill('SIGTERM');
    }
  }, 240_000);
});

describe('a resolver that times out (sqlite)', () => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  beforeAll(async () => {
    ctx = await setup('sqlite', { EV_CHUNK_SIZE: '10' });
    await grantCredits(ctx.database, ctx.account.id, CREDITS);
  });
  afterAll(async () => ctx?.teardown());

  it('asks again later; a verdict comes only from the mail server or, out of retries, says dns_failure', async () => {
    // the real resolver behind one that times out: the first two lookups of flaky.test, every lookup of dead.test
    const real = createDnsResolver({ servers: [dns.server], canaries: [] });
    let flaky = 0;
    const resolver = {
      ...real,
      mailRoute: async (domain: string) => {
        if (domain === 'dead.test' || (domain === 'outage.test' && flaky++ < 2)) return { kind: 'unknown' as const, error: 'ETIMEOUT' };
        return real.mailRoute(domain);
      },
    };
    const verifier = createVerifier({
      dns: resolver,
      smtp: { port: smtp.port, heloName: 'verifier.test', mailFrom: 'check@verifier.test', connectTimeoutMs: 2000, commandTimeoutMs: 2000 },
      allowPrivateNetworks: true,
      perDomainConcurrency: 2,
      globalConcurrency: 4,
      transientRetryMs: 20,
    });
    const worker = new JobWorker(ctx.database, { concurrency: 2, leaseMs: 30_000, pollMs: 10, maxAttempts: 3, errorRetryMs: 20, verifierFor: () => verifier });
    const { jobId } = await submitQueued(ctx.database, {
      userId: ctx.account.id,
      sandbox: false,
      emails: ['ok1@outage.test', 'ok2@dead.test'] as string[],
    });
    worker.start();
    try {
      await waitFor(
        () => jobStatusOf(ctx.database, jobId),
        (s) => s === 'completed',
        30_000,
        'job status',
      );
    } finally {
      await worker.stop();
    }
    const rows = Object.fromEntries((await verdicts(ctx.database, jobId)).map((r) => [r.email, { status: r.status, sub_reason: r.sub_reason }]));
    expect(rows['ok1@outage.test']).toEqual({ status: 'deliverable', sub_reason: null });
    expect(rows['ok2@dead.test']).toEqual({ status: 'unknown', sub_reason: 'dns_failure' });
    const [chunk] = await ctx.database.prisma.job.findMany({ where: { id: jobId } });
    expect(chunk!.status).toBe('completed');
    const attempts = await ctx.database.prisma.$queryRawUnsafe<{ attempts: number }[]>('SELECT attempts FROM job_chunks WHERE job_id = ?', jobId);
    expect(Number(attempts[0]!.attempts)).toBe(3); // the whole retry budget, then the verdict
  }, 60_000);
});
