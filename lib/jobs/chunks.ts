import type { Database, Db } from '../db/client';
import { q, selectRows } from '../db/sql';

/**
 * Chunk leases and claims: a queued job's addresses are cut into chunks (lib/jobs/insert.ts), which
 * workers claim under a lease, renew, complete or hand back.
 */

export interface ChunkClaim {
  jobId: string;
  no: number;
  startIdx: number;
  endIdx: number;
  attempts: number;
  userId: string;
  sandbox: boolean;
}

const CLAIMABLE = `((c.state = 'pending' AND c.not_before <= ?) OR (c.state = 'leased' AND c.lease_until < ?))`;

/**
 * Takes one chunk under a lease. The conditional UPDATE is the claim: of two workers racing for a
 * chunk only one sees its row change. PostgreSQL also skips rows another claim holds locked.
 * Fair claiming: the account whose unfinished jobs have had the fewest chunks taken (leased or
 * done) goes first, so one account's many or huge jobs cannot starve another's; within an account
 * the lowest chunk number across its jobs, so its running jobs take turns too.
 */
export async function claimChunk(
  { prisma, dialect }: Database, workerId: string, leaseMs: number, now = Date.now(),
  /**
   * sandboxOnly: leave production jobs alone (EV_EGRESS_POLICY=pause while port 25 fails).
   * egress: this worker's; a chunk handed back for greylisting by another egress is left to that
   * one (greylisting is mostly keyed by the client IP) until `pinMs` after its retry time.
   */
  filter: { sandboxOnly?: boolean; egress?: string; pinMs?: number } = {},
): Promise<ChunkClaim | null> {
  const lease = now + leaseMs;
  const pinned = filter.egress === undefined ? { sql: '', values: [] }
    : { sql: 'AND (c.egress IS NULL OR c.egress = ? OR c.not_before <= ?)', values: [filter.egress, now - (filter.pinMs ?? 0)] };
  for (let tries = 0; tries < 5; tries++) {
    const lock = dialect === 'postgres' ? 'FOR UPDATE OF c SKIP LOCKED' : '';
    const candidates = await prisma.$queryRawUnsafe<{ job_id: string; no: number }[]>(
      q(dialect, `WITH served AS (
          SELECT j.user_id, COUNT(*) AS n FROM job_chunks t JOIN jobs j ON j.id = t.job_id
          WHERE j.status IN ('queued', 'processing') AND t.state IN ('leased', 'done') GROUP BY j.user_id)
        SELECT c.job_id, c.no FROM job_chunks c JOIN jobs j ON j.id = c.job_id LEFT JOIN served s ON s.user_id = j.user_id
        WHERE ${CLAIMABLE} ${filter.sandboxOnly ? 'AND j.sandbox' : ''} ${pinned.sql} ORDER BY COALESCE(s.n, 0), c.no, c.not_before, c.job_id LIMIT 1 ${lock}`),
      now, now, ...pinned.values,
    );
    const candidate = candidates[0];
    if (!candidate) return null;
    const claimed = await prisma.$queryRawUnsafe<{ job_id: string; no: number; start_idx: number; end_idx: number; attempts: number }[]>(
      q(dialect, `UPDATE job_chunks SET state = 'leased', worker_id = ?, lease_until = ?, attempts = attempts + 1
        WHERE job_id = ? AND no = ? AND ((state = 'pending' AND not_before <= ?) OR (state = 'leased' AND lease_until < ?))
        RETURNING job_id, no, start_idx, end_idx, attempts`),
      workerId, lease, candidate.job_id, candidate.no, now, now,
    );
    const chunk = claimed[0];
    if (!chunk) continue;
    const job = await prisma.job.findUnique({ where: { id: chunk.job_id }, select: { userId: true, sandbox: true } });
    if (!job) continue;
    return { jobId: chunk.job_id, no: Number(chunk.no), startIdx: Number(chunk.start_idx), endIdx: Number(chunk.end_idx), attempts: Number(chunk.attempts), ...job };
  }
  return null;
}

/** Extends a held lease; false when the chunk was taken over (the worker must stop on it). */
export async function renewLease({ prisma, dialect }: Database, chunk: ChunkClaim, workerId: string, until: number): Promise<boolean> {
  const count = await prisma.$executeRawUnsafe(
    q(dialect, `UPDATE job_chunks SET lease_until = ? WHERE job_id = ? AND no = ? AND worker_id = ? AND state = 'leased'`),
    until, chunk.jobId, chunk.no, workerId,
  );
  return count === 1;
}

/**
 * Items of a chunk that have no stored result yet: a retried chunk repeats nothing. A duplicate is
 * never verified: it takes its first occurrence's result (csvPage, processedCount).
 */
export async function unverifiedItems(database: Database, chunk: ChunkClaim): Promise<{ idx: number; email: string }[]> {
  const rows = await selectRows<{ idx: number; email: string }>(
    database,
    `SELECT i.idx, i.email FROM job_items i WHERE i.job_id = ? AND i.idx >= ? AND i.idx < ?
      AND i.duplicate_of IS NULL AND NOT EXISTS (SELECT 1 FROM verifications v WHERE v.job_id = i.job_id AND v.idx = i.idx) ORDER BY i.idx`,
    [chunk.jobId, chunk.startIdx, chunk.endIdx],
  );
  return rows.map((row) => ({ idx: Number(row.idx), email: row.email }));
}

export async function completeChunk({ prisma, dialect }: Database, chunk: ChunkClaim, workerId: string): Promise<void> {
  await prisma.$executeRawUnsafe(
    q(dialect, `UPDATE job_chunks SET state = 'done' WHERE job_id = ? AND no = ? AND worker_id = ?`),
    chunk.jobId, chunk.no, workerId,
  );
}

/**
 * Hands a chunk back to be taken again after `notBefore` (greylisting, back-off, shutdown).
 * `countAttempt: false` takes back the claim's attempt (a worker shutting down did not try).
 * `egress`: the egress that saw greylisting in it, where its retry should go out from (claimChunk).
 */
export async function releaseChunk(
  { prisma, dialect }: Database, chunk: ChunkClaim, workerId: string, notBefore: number,
  { countAttempt = true, egress = null }: { countAttempt?: boolean; egress?: string | null } = {},
): Promise<void> {
  await prisma.$executeRawUnsafe(
    q(dialect, `UPDATE job_chunks SET state = 'pending', worker_id = NULL, lease_until = 0, not_before = ?, attempts = attempts - ?, egress = ?
      WHERE job_id = ? AND no = ? AND worker_id = ? AND state = 'leased'`),
    notBefore, countAttempt ? 0 : 1, egress, chunk.jobId, chunk.no, workerId,
  );
}

export async function openChunkCount({ prisma, dialect }: Database, jobId: string): Promise<number> {
  const rows = await prisma.$queryRawUnsafe<{ n: number | bigint }[]>(
    q(dialect, `SELECT COUNT(*) AS n FROM job_chunks WHERE job_id = ? AND state <> 'done'`),
    jobId,
  );
  return Number(rows[0]?.n ?? 0);
}

export async function cancelChunks(tx: Pick<Db, '$executeRawUnsafe'>, dialect: Database['dialect'], jobId: string): Promise<void> {
  await tx.$executeRawUnsafe(q(dialect, `UPDATE job_chunks SET state = 'cancelled' WHERE job_id = ? AND state <> 'done'`), jobId);
}
