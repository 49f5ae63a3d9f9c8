import type { Database } from '../../db/client';
import { q } from '../../db/sql';
import { type ChunkClaim, chunkClaim, claimable, leaseChunk, pinnedHere, type RunSql, releaseRow, SERVED_BY_ACCOUNT } from './ledger';
import type { ChunkQueue, ClaimFilter } from './queue';

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
 * Takes one chunk under a lease: the ledger's claim (`leaseChunk`) of the row the fairness query
 * picks. Of two workers racing for a chunk only one sees its row change (two processes on one
 * SQLite file take turns at its write lock; PostgreSQL, where workers are many, fetches through
 * pg-boss instead). Fair claiming: the account whose unfinished jobs have had the fewest chunks
 * taken (leased or done, `SERVED_BY_ACCOUNT`) goes first, so one account's many or huge jobs cannot
 * starve another's; within an account the lowest chunk number across its jobs, so its running jobs
 * take turns too.
 */
async function claimFromTable({ prisma, dialect }: Database, workerId: string, leaseMs: number, filter: ClaimFilter): Promise<ChunkClaim | null> {
  const pinned = filter.egress === undefined ? { sql: '', values: [] } : { sql: `AND ${pinnedHere(dialect, 'c')}`, values: [filter.egress, filter.pinMs ?? 0] };
  const run: RunSql = (sql, values) => prisma.$queryRawUnsafe(sql, ...values);
  for (let tries = 0; tries < 5; tries++) {
    const candidates = await prisma.$queryRawUnsafe<{ job_id: string; no: number }[]>(
      q(
        dialect,
        `WITH served AS (${SERVED_BY_ACCOUNT})
        SELECT c.job_id, c.no FROM job_chunks c JOIN jobs j ON j.id = c.job_id LEFT JOIN served s ON s.user_id = j.user_id
        WHERE ${claimable(dialect)} ${filter.sandboxOnly ? 'AND j.sandbox' : ''} ${pinned.sql} ORDER BY COALESCE(s.n, 0), c.no, c.not_before, c.job_id LIMIT 1`,
      ),
      ...pinned.values,
    );
    const candidate = candidates[0];
    if (!candidate) return null;
    const chunk = { jobId: candidate.job_id, no: Number(candidate.no) };
    const lease = await leaseChunk(run, dialect, chunk, { workerId, leaseMs });
    if (!lease) continue;
    const job = await prisma.job.findUnique({ where: { id: chunk.jobId }, select: { userId: true, sandbox: true } });
    if (!job) continue;
    return chunkClaim(chunk, lease, job);
  }
  return null;
}
