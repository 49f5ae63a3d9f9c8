import type { Database } from '../../db/client';
import { newId } from '../../db/ids';
import { q } from '../../db/sql';
import { claimable, dbNow, releaseRow, type ChunkClaim } from './ledger';
import type { ChunkQueue } from './';

/**
 * The one-machine queue (SQLite): `job_chunks` is both the ledger and the queue. A claim is a
 * conditional UPDATE of the row the fairness query picks; a chunk handed back is claimable again
 * at its `not_before`.
 */
export function tableQueue(database: Database): ChunkQueue {
  return {
    open: async () => {},
    enqueue: async () => {}, // the job's `job_chunks` rows are the queue
    claim: (workerId, leaseMs, filter = {}) => claimFromTable(database, workerId, leaseMs, filter),
    release: async (chunk, delayMs, { countAttempt = true, egress = null } = {}) => {
      await releaseRow(database.prisma, database.dialect, chunk, delayMs, countAttempt, egress);
    },
    completed: async () => {},
    redeliver: async () => 0, // every open `job_chunks` row is claimable as it is
  };
}

/**
 * Takes one chunk under a lease. The conditional UPDATE is the claim: of two workers racing for a
 * chunk only one sees its row change (two processes on one SQLite file take turns at its write
 * lock; PostgreSQL, where workers are many, fetches through pg-boss instead).
 * Fair claiming: the account whose unfinished jobs have had the fewest chunks taken (leased or
 * done) goes first, so one account's many or huge jobs cannot starve another's; within an account
 * the lowest chunk number across its jobs, so its running jobs take turns too.
 */
async function claimFromTable(
  { prisma, dialect }: Database,
  workerId: string,
  leaseMs: number,
  filter: { sandboxOnly?: boolean; egress?: string; pinMs?: number },
): Promise<ChunkClaim | null> {
  const pinned =
    filter.egress === undefined
      ? { sql: '', values: [] }
      : { sql: `AND (c.egress IS NULL OR c.egress = ? OR c.not_before <= ${dbNow(dialect)} - ?)`, values: [filter.egress, filter.pinMs ?? 0] };
  for (let tries = 0; tries < 5; tries++) {
    const candidates = await prisma.$queryRawUnsafe<{ job_id: string; no: number }[]>(
      q(
        dialect,
        `WITH served AS (
          SELECT j.user_id, COUNT(*) AS n FROM job_chunks t JOIN jobs j ON j.id = t.job_id
          WHERE j.status IN ('queued', 'processing') AND t.state IN ('leased', 'done') GROUP BY j.user_id)
        SELECT c.job_id, c.no FROM job_chunks c JOIN jobs j ON j.id = c.job_id LEFT JOIN served s ON s.user_id = j.user_id
        WHERE ${claimable(dialect)} ${filter.sandboxOnly ? 'AND j.sandbox' : ''} ${pinned.sql} ORDER BY COALESCE(s.n, 0), c.no, c.not_before, c.job_id LIMIT 1`,
      ),
      ...pinned.values,
    );
    const candidate = candidates[0];
    if (!candidate) return null;
    const token = newId('claim', 9);
    const claimed = await prisma.$queryRawUnsafe<
      { job_id: string; no: number; start_idx: number; end_idx: number; attempts: number; stalled_claims: number }[]
    >(
      q(
        dialect,
        `UPDATE job_chunks SET state = 'leased', worker_id = ?, claim_token = ?, lease_until = ${dbNow(dialect)} + ?, attempts = attempts + 1,
          stalled_claims = stalled_claims + 1
        WHERE job_id = ? AND no = ? AND ${claimable(dialect, 'job_chunks')}
        RETURNING job_id, no, start_idx, end_idx, attempts, stalled_claims`,
      ),
      workerId,
      token,
      leaseMs,
      candidate.job_id,
      candidate.no,
    );
    const chunk = claimed[0];
    if (!chunk) continue;
    const job = await prisma.job.findUnique({ where: { id: chunk.job_id }, select: { userId: true, sandbox: true } });
    if (!job) continue;
    return {
      jobId: chunk.job_id,
      no: Number(chunk.no),
      startIdx: Number(chunk.start_idx),
      endIdx: Number(chunk.end_idx),
      attempts: Number(chunk.attempts),
      stalledClaims: Number(chunk.stalled_claims),
      token,
      ...job,
    };
  }
  return null;
}
