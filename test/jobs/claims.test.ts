import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { renewLease, saveChunkResults } from '@/lib/jobs/queue/ledger';
import { claimChunk } from '@/lib/jobs/queue';
import { cancelJob, completeChunkAndFinish } from '@/lib/jobs/worker/lifecycle';
import { submitQueued } from '@/lib/jobs/intake/submit';
import { q } from '@/lib/db/sql';
import { jobResultRow } from '../api/stored-verdict';
import { sandboxVerdict } from '@/lib/verifier/sandbox';
import { DIALECTS } from '../databases';
import { setup } from '../api/harness';

// Leases on the database's clock, and claims with a token (issue 19, item 7).
describe.each(DIALECTS)('chunk claims (%s)', (dialect) => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  beforeAll(async () => {
    ctx = await setup(dialect, { EV_CHUNK_SIZE: '10' });
  });
  afterAll(async () => ctx?.teardown());
  afterEach(() => vi.restoreAllMocks());

  const oneChunkJob = async (tag: string) =>
    (await submitQueued(ctx.database, { userId: ctx.account.id, sandbox: true, emails: Array.from({ length: 10 }, (_, i) => `a${i}@${tag}.test`) })).jobId;
  const stored = async (jobId: string) =>
    Number(
      (await ctx.database.prisma.$queryRawUnsafe<{ n: number | bigint }[]>(q(dialect, 'SELECT COUNT(*) AS n FROM verifications WHERE job_id = ?'), jobId))[0]!
        .n,
    );

  it('refuses a stale claim of the same worker id: no renewal, no save, no completion', async () => {
    const jobId = await oneChunkJob('stale');
    const first = await claimChunk(ctx.database, 'w1', 1);
    expect(first?.jobId).toBe(jobId);
    await new Promise((r) => setTimeout(r, 20)); // the 1 ms lease runs out
    const second = await claimChunk(ctx.database, 'w1', 60_000);
    expect(second).toMatchObject({ jobId, no: first!.no, attempts: 2 });
    expect(second!.token).not.toBe(first!.token);

    const row = jobResultRow(sandboxVerdict('a0@stale.test'), { userId: ctx.account.id, jobId, idx: 0 });
    expect(await renewLease(ctx.database, first!, 60_000)).toBe(false);
    expect(await saveChunkResults(ctx.database, first!, [row])).toBe(false);
    expect(await stored(jobId)).toBe(0);
    expect(await completeChunkAndFinish(ctx.database, first!)).toBe('lost');
    const [chunk] = await ctx.database.prisma.$queryRawUnsafe<{ state: string }[]>(q(dialect, 'SELECT state FROM job_chunks WHERE job_id = ?'), jobId);
    expect(chunk!.state).toBe('leased');
    // the live claim does all of it
    expect(await renewLease(ctx.database, second!, 60_000)).toBe(true);
    expect(await saveChunkResults(ctx.database, second!, [row])).toBe(true);
    expect(await stored(jobId)).toBe(1);
  });

  it('times leases by the database clock, not the worker clock', async () => {
    const jobId = await oneChunkJob('clock');
    const before = Date.now();
    // a worker whose clock runs an hour behind still holds its lease for leaseMs of real time
    vi.spyOn(Date, 'now').mockReturnValue(before - 3_600_000);
    const slow = await claimChunk(ctx.database, 'slow-clock', 60_000);
    vi.restoreAllMocks();
    expect(slow?.jobId).toBe(jobId);
    const [row] = await ctx.database.prisma.$queryRawUnsafe<{ lease_until: number | bigint }[]>(
      q(dialect, 'SELECT lease_until FROM job_chunks WHERE job_id = ?'),
      jobId,
    );
    expect(Number(row!.lease_until)).toBeGreaterThanOrEqual(before + 59_000);
    // and a worker whose clock runs an hour ahead cannot take it over
    vi.spyOn(Date, 'now').mockReturnValue(before + 3_600_000);
    expect(await claimChunk(ctx.database, 'fast-clock', 60_000)).toBeNull();
  });
  it('never hands out a chunk of a cancelled job again', async () => {
    const jobId = (
      await submitQueued(ctx.database, { userId: ctx.account.id, sandbox: true, emails: Array.from({ length: 30 }, (_, i) => `a${i}@cancelled.test`) })
    ).jobId;
    const held = await claimChunk(ctx.database, 'w1', 1);
    expect(held?.jobId).toBe(jobId);
    await cancelJob(ctx.database, ctx.account.id, jobId, true);
    await new Promise((r) => setTimeout(r, 20)); // the held chunk's 1 ms lease runs out too
    expect(await claimChunk(ctx.database, 'w2', 60_000)).toBeNull();
  });

  // PostgreSQL resets the count after the save's commit (lib/db/insert-while-held.ts): each save carrying
  // it would wait for the FOR SHARE of the claim's other saves in flight, so only one of them carries it
  it.runIf(dialect === 'postgres')("resets a claim's stalled count once for its saves at once, again after a save that failed", async () => {
    const jobId = await oneChunkJob('stalled');
    const claim = (await claimChunk(ctx.database, 'w-stalled', 60_000))!;
    expect(claim.stalledClaims).toBe(1);
    const rowOf = (idx: number) => jobResultRow(sandboxVerdict(`a${idx}@stalled.test`), { userId: ctx.account.id, jobId, idx });
    const resets: string[] = [];
    const query = pg.Client.prototype.query;
    vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
      const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string })?.text;
      if (text?.includes('stalled_claims = 0')) resets.push(text);
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as never);
    const bad = rowOf(0);
    bad[2] = 'not an index'; // idx
    await expect(saveChunkResults(ctx.database, claim, [bad])).rejects.toThrow();
    expect(claim.stalledClaims).toBe(1);
    expect(await Promise.all([0, 1, 2].map((i) => saveChunkResults(ctx.database, claim, [rowOf(i)])))).toEqual([true, true, true]);
    expect(resets).toHaveLength(1);
    expect(claim.stalledClaims).toBe(0);
    const [row] = await ctx.database.prisma.$queryRawUnsafe<{ stalled_claims: number }[]>('SELECT stalled_claims FROM job_chunks WHERE job_id = $1', jobId);
    expect(row!.stalled_claims).toBe(0);
    expect(await stored(jobId)).toBe(3);
  });
});
