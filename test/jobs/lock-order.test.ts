import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pauseAt } from '@/lib/failpoints/failpoints';
import { saveChunkResults } from '@/lib/jobs/queue/ledger';
import { claimChunk } from '@/lib/jobs/queue';
import { completeChunkAndFinish } from '@/lib/jobs/worker/lifecycle';
import { submitQueued } from '@/lib/jobs/intake/submit';
import { q } from '@/lib/db/sql';
import { jobResultRow } from '../api/stored-verdict';
import { sandboxVerdict } from '@/lib/verifier/sandbox';
import { setup } from '../api/harness';

// Issue 29, item 8: one lock order for a chunk and its pg-boss delivery. A worker finishing its chunk
// holds the finishing transaction open (the pausepoint `chunk.finishing`, after the chunk is marked
// done) while its lease runs out and a second worker fetches the chunk's delivery, due at the lease's
// end. With the finish locking the chunk before the delivery and the claim the delivery before the
// chunk, PostgreSQL aborted one of them (deadlock detected); with one order both go through.
// PostgreSQL only: SQLite has no deliveries and one writer at a time.
describe('lock order of chunk and delivery (postgres)', () => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  beforeAll(async () => {
    ctx = await setup('postgres', { EV_CHUNK_SIZE: '10' });
  });
  afterAll(async () => ctx?.teardown());

  it('a lease that runs out during the finish: the finish completes the job and the other claim gets nothing, no deadlock', async () => {
    const emails = Array.from({ length: 10 }, (_, i) => `a${i}@lease.test`);
    const { jobId } = await submitQueued(ctx.database, { userId: ctx.account.id, sandbox: true, emails });
    const first = await claimChunk(ctx.database, 'finisher', 400);
    expect(first?.jobId).toBe(jobId);
    const rows = emails.map((email, idx) => jobResultRow(sandboxVerdict(email), { userId: ctx.account.id, jobId, idx }));
    expect(await saveChunkResults(ctx.database, first!, rows)).toBe(true);

    const pause = pauseAt('chunk.finishing');
    const finishing = completeChunkAndFinish(ctx.database, first!).then(
      (r) => ({ ok: r }),
      (error: unknown) => ({ error: String(error) }),
    );
    await pause.reached;
    await new Promise((r) => setTimeout(r, 600)); // the 400 ms lease runs out while the finish is held
    const claiming = claimChunk(ctx.database, 'taker', 60_000).then(
      (r) => ({ ok: r }),
      (error: unknown) => ({ error: String(error) }),
    );
    await new Promise((r) => setTimeout(r, 300)); // the claim is under way (fetched, or skipped the delivery)
    pause.resume();
    const [finished, claimed] = await Promise.all([finishing, claiming]);

    expect(finished).toEqual({ ok: 'finished' });
    expect(claimed).toEqual({ ok: null });
    const job = await ctx.database.prisma.job.findUniqueOrThrow({ where: { id: jobId } });
    expect(job.status).toBe('completed');
    const [chunk] = await ctx.database.prisma.$queryRawUnsafe<{ state: string }[]>(q('postgres', 'SELECT state FROM job_chunks WHERE job_id = ?'), jobId);
    expect(chunk!.state).toBe('done');
    // no delivery is left behind for the done chunk
    const [left] = await ctx.database.prisma.$queryRawUnsafe<{ n: bigint }[]>(`SELECT COUNT(*) AS n FROM pgboss.job WHERE data->>'job' = $1`, jobId);
    expect(Number(left!.n)).toBe(0);
  }, 30_000);
});
