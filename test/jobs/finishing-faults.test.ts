import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureAccount } from '@/lib/accounts/users';
import { grantCredits } from '@/lib/accounts/quota';
import { q } from '@/lib/db/sql';
import { submitQueued } from '@/lib/jobs/intake/submit';
import { DIALECTS } from '../databases';
import { setup } from '../api/harness';
import { booksOf, jobStatusOf, startWorkerProcess, subscribe, waitFor } from './processes';

// Jobs always end (issue 19): real worker processes killed with SIGKILL at the named failpoints of
// the finishing path, then a fresh worker; production accounting with the sandbox engine.
const CREDITS = 1000;
const WORKER_ENV = { EV_PRODUCTION_ENGINE: 'sandbox', EV_LEASE_MS: '1500', EV_CHUNK_SIZE: '20' };

describe.each(DIALECTS)('jobs always end (%s)', (dialect) => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  beforeAll(async () => {
    ctx = await setup(dialect, { EV_CHUNK_SIZE: '20', EV_PRODUCTION_ENGINE: 'sandbox', EV_FREE_DAILY: '0' });
  });
  afterAll(async () => ctx?.teardown());

  async function productionJob(tag: string, count = 60) {
    const account = await ensureAccount(ctx.database, `${tag}-${Math.random().toString(36).slice(2, 8)}@example.com`);
    await grantCredits(ctx.database, account.id, CREDITS);
    await subscribe(ctx.database, account.id);
    const emails = Array.from({ length: count }, (_, i) => `user${i}@${tag}.test`);
    const { jobId } = await submitQueued(ctx.database, { userId: account.id, sandbox: false, emails });
    return { userId: account.id, jobId, count };
  }

  async function expectSettled(job: { userId: string; jobId: string; count: number }) {
    const env = { ...WORKER_ENV, DATABASE_URL: process.env.DATABASE_URL! };
    const worker = await startWorkerProcess(env);
    try {
      await waitFor(
        () => jobStatusOf(ctx.database, job.jobId),
        (s) => s === 'completed',
        60_000,
        'job status',
      );
      // the sweeper and a second finishing attempt have had their chance to do it twice
      await new Promise((r) => setTimeout(r, 500));
    } finally {
      await worker.kill('SIGTERM');
    }
    const books = await booksOf(ctx.database, job.userId, job.jobId, CREDITS);
    expect(books).toMatchObject({ stored: job.count, distinct: job.count, deliveries: 1 });
    // what the account paid is exactly what its stored results make chargeable: refunded once
    expect(books.paid).toBe(books.chargeable);
  }

  it('finishes a job whose chunks are all done but which was never finished (a crash between the two)', async () => {
    const job = await productionJob('stranded', 40);
    // the state a kill -9 between the last chunk's commit and finishJobIfDone left: every chunk
    // done, the job processing, its reservation unrefunded
    await ctx.database.prisma.job.update({ where: { id: job.jobId }, data: { status: 'processing' } });
    await ctx.database.prisma.$executeRawUnsafe(q(dialect, `UPDATE job_chunks SET state = 'done' WHERE job_id = ?`), job.jobId);
    const env = { ...WORKER_ENV, DATABASE_URL: process.env.DATABASE_URL! };
    const worker = await startWorkerProcess(env);
    try {
      await waitFor(
        () => jobStatusOf(ctx.database, job.jobId),
        (s) => s === 'completed',
        30_000,
        'stranded job status',
      );
    } finally {
      await worker.kill('SIGTERM');
    }
    const books = await booksOf(ctx.database, job.userId, job.jobId, CREDITS);
    // no result was stored: everything reserved came back, once, with one bulk.completed
    expect(books).toMatchObject({ stored: 0, paid: 0, chargeable: 0, deliveries: 1 });
  }, 90_000);

  it.each([
    ['worker.after-save', '2*exit'],
    ['chunk.after-complete', '2*exit'],
    ['job.before-finish', 'exit'],
  ])(
    'a worker killed at %s: the next worker ends the job, every address stored and charged once',
    async (point, action) => {
      const job = await productionJob(point.replace(/[^a-z]/g, ''));
      const doomed = await startWorkerProcess({ ...WORKER_ENV, DATABASE_URL: process.env.DATABASE_URL!, EV_TEST_FAILPOINTS: `${point}=${action}` });
      expect(await doomed.exited).toBe('SIGKILL');
      expect(doomed.output()).toContain(`failpoint ${point}`);
      expect(await jobStatusOf(ctx.database, job.jobId)).not.toBe('completed');
      await expectSettled(job);
    },
    120_000,
  );

  it('a finishing commit that fails (job.before-finish=throw) is retried by the same worker until it happens', async () => {
    const job = await productionJob('throws');
    const worker = await startWorkerProcess({ ...WORKER_ENV, DATABASE_URL: process.env.DATABASE_URL!, EV_TEST_FAILPOINTS: 'job.before-finish=throw' });
    try {
      await waitFor(
        () => jobStatusOf(ctx.database, job.jobId),
        (s) => s === 'completed',
        60_000,
        'job status',
      );
      await new Promise((r) => setTimeout(r, 500));
    } finally {
      await worker.kill('SIGTERM');
    }
    expect(worker.output()).toContain('failpoint job.before-finish');
    const books = await booksOf(ctx.database, job.userId, job.jobId, CREDITS);
    expect(books).toMatchObject({ stored: job.count, distinct: job.count, deliveries: 1 });
    expect(books.paid).toBe(books.chargeable);
  }, 120_000);
});
