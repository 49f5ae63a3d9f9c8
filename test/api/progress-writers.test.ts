import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as bulk from '@/app/v1/verify/bulk/route';
import * as status from '@/app/v1/verify/bulk/status/[jobId]/route';
import * as reuse from '@/app/v1/account/reuse/route';
import { auditCredits } from '@/lib/accounts/audit';
import { grantCredits } from '@/lib/accounts/quota';
import { selectRows } from '@/lib/db/sql';
import { JobWorker } from '@/lib/jobs/worker/worker';
import { saveResults } from '@/lib/results/rows';
import { sandboxVerifier } from '@/lib/verifier/sandbox';
import { DIALECTS } from '../databases';
import { call, setup, until } from './harness';
import { jobResultRow, storedVerdict } from './stored-verdict';

/**
 * Issue 34: a job's progress (`job_progress.processed`) is counted by every writer of its results in
 * the transaction that stores them (lib/db/job-progress.ts): the worker's saves, an instant list, the
 * copies of reused results. SQLite counts once per save (its per-row trigger is dropped), PostgreSQL
 * with its per-statement trigger; both agree with a count from the stored rows at every step.
 */
describe.each(DIALECTS)("every writer of a job's results counts its progress (%s)", (dialect) => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  beforeAll(async () => {
    ctx = await setup(dialect, {
      EV_PRODUCTION_ENGINE: 'sandbox',
      EV_ALLOW_PLACEHOLDER_IDENTITY: 'true',
      EV_FREE_DAILY: '0',
      EV_CHUNK_SIZE: '4',
      EV_EMBEDDED_WORKER: 'false',
      EV_RATE_LIMIT_PER_MINUTE: '1000',
      EV_CREATE_RATE_PER_MINUTE: '1000',
    });
    await grantCredits(ctx.database, ctx.account.id, 1000);
  });
  afterAll(() => ctx.teardown());

  /** The job's rows answered, from the stored rows: each item whose own or first occurrence's result is stored. */
  const answered = async (jobId: string) => {
    const [row] = await selectRows<{ n: number | bigint }>(
      ctx.database,
      `SELECT COUNT(*) AS n FROM job_items i WHERE i.job_id = ? AND EXISTS (SELECT 1 FROM verifications v WHERE v.job_id = i.job_id AND v.idx = COALESCE(i.duplicate_of, i.idx))`,
      [jobId],
    );
    return Number(row!.n);
  };
  const counted = async (jobId: string) => (await ctx.database.prisma.jobProgress.findUnique({ where: { jobId } }))?.processed ?? 0;
  const runWorker = async <T>(work: () => Promise<T>) => {
    const worker = new JobWorker(ctx.database, { concurrency: 4, leaseMs: 5000, pollMs: 20, verifierFor: () => sandboxVerifier });
    worker.start();
    try {
      return await work();
    } finally {
      await worker.stop();
    }
  };
  const completed = (jobId: string) =>
    until(
      () => ctx.database.prisma.job.findUniqueOrThrow({ where: { id: jobId } }),
      (job) => job.status === 'completed',
    );

  it('keeps the per-row trigger only on PostgreSQL', async () => {
    const triggers = await selectRows<{ name: string }>(
      ctx.database,
      dialect === 'sqlite'
        ? `SELECT name FROM sqlite_master WHERE type = 'trigger'`
        : `SELECT tgname AS name FROM pg_trigger WHERE tgrelid = 'verifications'::regclass AND NOT tgisinternal`,
      [],
    );
    expect(triggers.map((t) => t.name)).toEqual(dialect === 'sqlite' ? [] : ['verifications_job_progress']);
  });

  it('counts reused copies at submission, an instant list, and the worker after them', async () => {
    const first = Array.from({ length: 12 }, (_, i) => `known${i}@progress.example`);
    const a = (await call(bulk.POST, { key: ctx.key, sandbox: false, body: { emails: first } })).json.job_id as string;
    await runWorker(() => completed(a));
    expect(await counted(a)).toBe(12);
    expect((await call(reuse.POST, { key: ctx.key, sandbox: false, body: { days: 7 } })).status).toBe(200);

    // 12 known addresses, each again later in another case, and 6 new ones with a duplicate each
    const fresh = Array.from({ length: 6 }, (_, i) => `new${i}@progress.example`);
    const emails = [...first, ...fresh, ...first.map((e) => e.toUpperCase()), ...fresh.map((e) => ` ${e}`)];
    const submitted = (await call(bulk.POST, { key: ctx.key, sandbox: false, body: { emails } })).json;
    expect(submitted).toMatchObject({ status: 'queued', duplicate_emails: 18 });
    const b = submitted.job_id as string;
    // before any worker: the copies and their later duplicates, and the poll says so
    const reused = Number(submitted.reused_emails);
    expect(reused).toBeGreaterThan(0);
    expect(await answered(b)).toBe(2 * reused);
    expect(await counted(b)).toBe(2 * reused);
    expect((await call(status.GET, { key: ctx.key, sandbox: false, params: { jobId: b } })).json.processed_emails).toBe(2 * reused);
    await runWorker(() => completed(b));
    expect(await answered(b)).toBe(36);
    expect(await counted(b)).toBe(36);

    // an instant list: its own results, a reused one, and duplicates of both
    const small = [first[0]!, 'instant@progress.example', first[0]!.toUpperCase(), ' instant@progress.example', first[1]!];
    const instant = (await call(bulk.POST, { key: ctx.key, sandbox: false, body: { emails: small } })).json;
    expect(instant).toMatchObject({ instant: true, status: 'completed' });
    expect(await answered(instant.job_id)).toBe(5);
    expect(await counted(instant.job_id)).toBe(5);
    expect((await auditCredits(ctx.database)).problems).toEqual([]);
  }, 60_000);

  it('counts a save of several jobs, each job its own, and nothing for a row of none', async () => {
    // two queued lists of 12 (no worker runs here): the first repeats its row 0 last, the second its row 2
    const list = (name: string, repeat: number) => {
      const emails = Array.from({ length: 11 }, (_, i) => `${name}${i}@progress.example`);
      return [...emails, emails[repeat]!.toUpperCase()];
    };
    const jobs: string[] = [];
    for (const emails of [list('p', 0), list('q', 2)]) {
      const answer = (await call(bulk.POST, { key: ctx.key, body: { emails } })).json;
      expect(answer.status).toBe('queued');
      jobs.push(answer.job_id);
    }
    const row = (jobId: string | null, idx: number | null) => jobResultRow(storedVerdict(`r${idx}@progress.example`), { userId: ctx.account.id, jobId, idx });
    await saveResults(ctx.database, [row(jobs[0]!, 0), row(jobs[1]!, 0), row(null, null), row(jobs[0]!, 1), row(jobs[1]!, 2)]);
    expect([await counted(jobs[0]!), await counted(jobs[1]!)]).toEqual([3, 3]);
    // saved again with one more: only the new row counts
    await saveResults(ctx.database, [row(jobs[0]!, 0), row(jobs[0]!, 1), row(jobs[0]!, 3)]);
    expect([await counted(jobs[0]!), await counted(jobs[1]!)]).toEqual([4, 3]);
    for (const jobId of jobs) expect(await counted(jobId)).toBe(await answered(jobId));
  });
});
