import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditCredits } from '@/lib/accounts/audit';
import { grantCredits } from '@/lib/accounts/quota';
import { q } from '@/lib/db/sql';
import { newId } from '@/lib/db/ids';
import { JobWorker } from '@/lib/jobs/worker/worker';
import { chargeableCount } from '@/lib/results/chargeable';
import { runDueMonitors } from '@/lib/monitors/runs';
import { DAY_MS } from '@/lib/usage/days';
import { sandboxVerifier } from '@/lib/verifier/sandbox';
import * as bulk from '@/app/v1/verify/bulk/route';
import * as status from '@/app/v1/verify/bulk/status/[jobId]/route';
import * as reuse from '@/app/v1/account/reuse/route';
import { DIALECTS } from '../databases';
import { call, setup, until } from './harness';

// Fresh results reused (issue 32, item 3): opt-in per account, within its window, marked with the
// result's date, neither reserved nor charged; never by a monitor's run. The worker verifies
// production jobs with the sandbox's deterministic verifier here: what is under test is submission,
// storage and the books, not the probe.
describe.each(DIALECTS)('reuse of fresh results (%s)', (dialect) => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  let worker: JobWorker;
  beforeAll(async () => {
    ctx = await setup(dialect, {
      EV_FREE_DAILY: '0',
      EV_ALLOW_PLACEHOLDER_IDENTITY: 'true',
      EV_RATE_LIMIT_PER_MINUTE: '1000',
      EV_CREATE_RATE_PER_MINUTE: '1000',
    });
    worker = new JobWorker(ctx.database, { concurrency: 4, leaseMs: 5000, pollMs: 20, verifierFor: () => sandboxVerifier });
    worker.start();
    await grantCredits(ctx.database, ctx.account.id, 1000);
  });
  afterAll(async () => {
    await worker.stop();
    await ctx.teardown();
  });

  const submit = async (emails: string[]) => {
    const answer = await call(bulk.POST, { key: ctx.key, sandbox: false, body: { emails } });
    expect(answer.status).toBe(200);
    const jobId = answer.json.job_id as string;
    const job = await until(
      () => ctx.database.prisma.job.findUniqueOrThrow({ where: { id: jobId } }),
      (j) => j.status === 'completed',
    );
    expect(job.status).toBe('completed');
    return { jobId, reused: answer.json.reused_emails as number, reserved: job.reservedCredits + job.reservedFree };
  };
  const charged = async (jobId: string) => {
    const [row] = await ctx.database.prisma.$queryRawUnsafe<{ n: number | bigint | null }[]>(
      q(dialect, `SELECT SUM(credits + free) AS n FROM credit_ledger WHERE cause = ? AND kind = 'charge'`),
      jobId,
    );
    return Number(row?.n ?? 0);
  };
  const credits = async () => (await ctx.database.prisma.user.findUniqueOrThrow({ where: { id: ctx.account.id } })).credits;

  it('answers an address verified within the window from that result, uncharged, and only when the account asked', async () => {
    expect((await call(reuse.GET, { key: ctx.key, sandbox: false })).json).toMatchObject({ enabled: false, days: null });
    const first = Array.from({ length: 20 }, (_, i) => `member${i}@reuse.example`);
    const a = await submit(first);
    expect(a.reused).toBe(0);
    const chargeableA = await chargeableCount(ctx.database.prisma, dialect, a.jobId);
    expect(chargeableA).toBeGreaterThan(0);

    // off by default: the same list is verified and charged again
    const again = await submit(first);
    expect(again.reused).toBe(0);
    expect(await charged(again.jobId)).toBe(chargeableA);

    expect((await call(reuse.POST, { key: ctx.key, sandbox: false, body: { days: 0 } })).status).toBe(400);
    expect((await call(reuse.POST, { key: ctx.key, sandbox: false, body: { days: 7 } })).json).toMatchObject({ enabled: true, days: 7 });

    // 15 known addresses (two spelt in another case) and 10 new ones
    const known = first.slice(0, 15).map((email, i) => (i < 2 ? email.toUpperCase() : email));
    const fresh = Array.from({ length: 10 }, (_, i) => `newcomer${i}@reuse.example`);
    const before = await credits();
    const b = await submit([...known, ...fresh]);
    const reusable = await ctx.database.prisma.$queryRawUnsafe<{ n: number | bigint }[]>(
      q(dialect, `SELECT COUNT(*) AS n FROM verifications WHERE job_id = ? AND idx < 15 AND status <> 'unknown'`),
      again.jobId,
    );
    expect(b.reused).toBe(Number(reusable[0]!.n));
    expect(b.reused).toBeGreaterThanOrEqual(10);
    expect(b.reserved).toBe(25 - b.reused);
    // charged only for what was verified now
    const newlyChargeable = await ctx.database.prisma.$queryRawUnsafe<{ n: number | bigint }[]>(
      q(dialect, `SELECT COUNT(*) AS n FROM verifications WHERE job_id = ? AND reused_at IS NULL AND status <> 'unknown'`),
      b.jobId,
    );
    expect(await charged(b.jobId)).toBe(Number(newlyChargeable[0]!.n));
    expect(before - (await credits())).toBe(Number(newlyChargeable[0]!.n));

    // marked as reused, with the date of the result it repeats
    const page = await call(status.GET, { key: ctx.key, sandbox: false, path: `/v1/verify/bulk/status/${b.jobId}?limit=100`, params: { jobId: b.jobId } });
    const results = page.json.data.results as { email: string; reused: boolean; checked_at: string; status: string }[];
    const stored = await ctx.database.prisma.verification.findMany({ where: { jobId: again.jobId } });
    const timeOf = new Map(stored.map((row) => [row.email.toLowerCase(), Number(row.createdAt)]));
    for (const result of results.slice(0, 15)) {
      if (result.status === 'unknown') continue;
      expect(result.reused).toBe(true);
      expect(Date.parse(result.checked_at)).toBe(timeOf.get(result.email.toLowerCase()));
    }
    expect(results[0]!.email).toBe(known[0]); // the address as this list spelt it
    expect(results.slice(15).every((r) => !r.reused)).toBe(true);

    // a list of 10 or fewer is answered at once, the same way
    const small = await call(bulk.POST, { key: ctx.key, sandbox: false, body: { emails: [...first.slice(15, 18), 'fresh.one@reuse.example'] } });
    expect(small.json.instant).toBe(true);
    const smallResults = small.json.results as { email: string; reused: boolean; checked_at: string; status: string; cached: boolean }[];
    for (const result of smallResults.slice(0, 3)) {
      if (result.status === 'unknown') continue;
      expect(result).toMatchObject({ reused: true, cached: true });
      expect(Date.parse(result.checked_at)).toBe(timeOf.get(result.email));
    }
    expect(smallResults[3]!.reused).toBe(false);
    const smallJob = await ctx.database.prisma.job.findUniqueOrThrow({ where: { id: small.json.job_id } });
    expect(smallJob.reservedCredits).toBe(4 - smallResults.slice(0, 3).filter((r) => r.status !== 'unknown').length);
    expect(await charged(small.json.job_id)).toBe(smallResults.filter((r) => !r.reused && r.status !== 'unknown').length);
    expect(await ctx.database.prisma.verification.count({ where: { jobId: small.json.job_id } })).toBe(4);

    // outside the window: verified again
    await ctx.database.prisma.$executeRawUnsafe(
      q(dialect, 'UPDATE verifications SET created_at = created_at - ? WHERE user_id = ?'),
      8 * DAY_MS,
      ctx.account.id,
    );
    const late = await submit(first.slice(0, 12));
    expect(late.reused).toBe(0);

    // a monitor's run never reuses
    await ctx.database.prisma.monitor.create({
      data: { id: newId('mon'), userId: ctx.account.id, listId: late.jobId, intervalDays: 30, nextRunAt: BigInt(Date.now()) },
    });
    expect((await runDueMonitors(ctx.database)).started).toBe(1);
    const run = await until(
      () => ctx.database.prisma.job.findFirstOrThrow({ where: { previousJobId: late.jobId } }),
      (j) => j.status === 'completed',
    );
    expect(run.reservedCredits + run.reservedFree).toBe(12);
    expect(await ctx.database.prisma.verification.count({ where: { jobId: run.id, NOT: { reusedAt: null } } })).toBe(0);

    // the books still balance
    expect((await auditCredits(ctx.database)).problems).toEqual([]);
    expect((await call(reuse.POST, { key: ctx.key, sandbox: false, body: { days: null } })).json).toMatchObject({ enabled: false, days: null });
  }, 120_000);
});
