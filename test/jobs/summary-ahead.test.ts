import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pauseAt } from '@/lib/failpoints/failpoints';
import { submitQueued } from '@/lib/jobs/intake/submit';
import { claimChunk } from '@/lib/jobs/queue';
import { saveChunkResults } from '@/lib/jobs/queue/ledger';
import { completeChunkAndFinish } from '@/lib/jobs/worker/lifecycle';
import { jobResultRow } from '../api/stored-verdict';
import { sandboxVerdict } from '@/lib/verifier/sandbox';
import { DIALECTS } from '../databases';
import { setup } from '../api/harness';

// The summary of a job whose rows are all answered is read before the completion's transaction
// (lib/jobs/worker/lifecycle.ts, `summaryAhead`), and used only when the job's progress has not moved
// since: a result stored between that read and the completion is counted, not called failed.
describe.each(DIALECTS)('the summary read ahead of the completion (%s)', (dialect) => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  beforeAll(async () => {
    ctx = await setup(dialect, { EV_CHUNK_SIZE: '10' });
  });
  afterAll(async () => ctx?.teardown());

  const rowsOf = (jobId: string, emails: string[], from: number, to: number) =>
    emails.slice(from, to).map((email, i) => jobResultRow(sandboxVerdict(email), { userId: ctx.account.id, jobId, idx: from + i }));

  it('counts a result stored after the early read, as when nothing was stored between the reads', async () => {
    for (const late of [true, false]) {
      const emails = Array.from({ length: 10 }, (_, i) => `a${i}@ahead-${late}.test`);
      const { jobId } = await submitQueued(ctx.database, { userId: ctx.account.id, sandbox: true, emails });
      const chunk = await claimChunk(ctx.database, 'finisher', 60_000);
      expect(chunk?.jobId).toBe(jobId);
      expect(await saveChunkResults(ctx.database, chunk!, rowsOf(jobId, emails, 0, late ? 9 : 10))).toBe(true);
      const pause = pauseAt('chunk.summary-ahead');
      const finishing = completeChunkAndFinish(ctx.database, chunk!);
      await pause.reached;
      // the early read counted nine results; the tenth arrives before the completion's transaction
      if (late) expect(await saveChunkResults(ctx.database, chunk!, rowsOf(jobId, emails, 9, 10))).toBe(true);
      pause.resume();
      expect(await finishing).toBe('finished');
      const job = await ctx.database.prisma.job.findUniqueOrThrow({ where: { id: jobId } });
      const summary = JSON.parse(job.summary!) as { total: number; failed: number; valid: number; invalid: number; unknown: number };
      expect(summary.total).toBe(10);
      expect(summary.failed).toBe(0);
      expect(summary.valid + summary.invalid + summary.unknown).toBe(10);
    }
  }, 30_000);
});
