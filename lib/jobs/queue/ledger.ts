import type { Database, Db, Dialect } from '../../db/client';
import { newId } from '../../db/ids';
import { insertWhileHeld } from '../../db/insert-while-held';
import { dbNow, q, selectRows } from '../../db/sql';
import { VERIFICATION_COLUMNS, VERIFICATION_PG_TYPES } from '../../results/rows';
import { OPEN_SQL } from '../states';

/**
 * The chunk ledger: a queued job's addresses are cut into chunks (lib/jobs/intake/chunk-rows.ts),
 * which workers claim under a lease (through the queue, lib/jobs/queue/queue.ts), renew, complete or
 * hand back. Both engines claim with the one UPDATE here (`leaseChunk`), rank accounts by the one
 * "served" count (`SERVED_BY_ACCOUNT`, `SERVED_OF_ACCOUNT`) and hand out the one `ChunkClaim`
 * (`chunkClaim`). Leases are on the database's clock, as politeness is (lib/db/politeness-pg.ts),
 * so workers whose clocks disagree still agree on when a lease ran out. Each claim gets a fresh
 * token: renewals, saves and completion name the claim, so a stale claim is refused even when the
 * same worker (id) claimed the chunk again.
 */

export interface ChunkClaim {
  jobId: string;
  no: number;
  startIdx: number;
  endIdx: number;
  attempts: number;
  /** claims in a row, this one included, that stored no result (a stored result resets it) */
  stalledClaims: number;
  userId: string;
  sandbox: boolean;
  /** this claim's token (`claim_token`): only its holder may renew, save and complete */
  token: string;
  /** PostgreSQL: the pg-boss job that brings the chunk back if this claim's worker dies (lib/jobs/queue/pgboss.ts) */
  delivery?: { queue: string; id: string; priority: number };
}

type Tx = Pick<Db, '$executeRawUnsafe' | '$queryRawUnsafe'>;

/** Runs one statement written with `?` placeholders and answers its rows: Prisma, or pg-boss's own transaction (pgboss-claim.ts). */
export type RunSql = (sql: string, values: unknown[]) => Promise<unknown[]>;

/** One chunk of a job, as the queue found it. */
export interface ChunkRef {
  jobId: string;
  no: number;
}

/** The account and mode of a chunk's job: a claim carries them. */
export interface ChunkOwner {
  userId: string;
  sandbox: boolean;
}

/**
 * Fair claiming, the one definition both engines rank by: the chunks an account's unfinished jobs
 * have had served (leased or done). The table engine orders its claim by it (`SERVED_BY_ACCOUNT`);
 * pg-boss turns it into a new job's priorities (`SERVED_OF_ACCOUNT`, one account's, `?` its id).
 */
const SERVED = `FROM job_chunks t JOIN jobs j ON j.id = t.job_id WHERE j.status IN (${OPEN_SQL}) AND t.state IN ('leased', 'done')`;
export const SERVED_BY_ACCOUNT = `SELECT j.user_id, COUNT(*) AS n ${SERVED} GROUP BY j.user_id`;
export const SERVED_OF_ACCOUNT = `SELECT COUNT(*) AS n ${SERVED} AND j.user_id = ?`;

/**
 * A chunk this worker's egress may take: one handed back for greylisting by another egress is left
 * to that one until `pinMs` after its retry time (lib/jobs/queue/queue.ts ClaimFilter). Parameters:
 * the egress, then `pinMs`.
 */
export const pinnedHere = (dialect: Dialect, c: string) => `(${c}.egress IS NULL OR ${c}.egress = ? OR ${c}.not_before <= ${dbNow(dialect)} - ?)`;

/** A claim's lease: the chunk's range and counts as the claim's UPDATE returned them, and its token. */
export interface Lease {
  startIdx: number;
  endIdx: number;
  attempts: number;
  stalledClaims: number;
  token: string;
  /** when the lease runs out (database clock, epoch ms) */
  leaseUntil: number;
}

/**
 * The claim, the same for both engines: a conditional UPDATE that leases the chunk to `workerId`
 * for `leaseMs` (database clock) under a fresh token, only while it is claimable (and, given an
 * egress, not left to another one). Of two workers racing for a chunk only one sees its row change.
 * Null when the chunk was not claimable.
 */
export async function leaseChunk(
  run: RunSql,
  dialect: Dialect,
  chunk: ChunkRef,
  worker: { workerId: string; leaseMs: number; egress?: string; pinMs?: number },
): Promise<Lease | null> {
  const token = newId('claim', 9);
  const pinned = worker.egress !== undefined;
  const rows = (await run(
    q(
      dialect,
      `UPDATE job_chunks SET state = 'leased', worker_id = ?, claim_token = ?, lease_until = ${dbNow(dialect)} + ?, attempts = attempts + 1,
        stalled_claims = stalled_claims + 1
      WHERE job_id = ? AND no = ? AND ${claimable(dialect, 'job_chunks')} ${pinned ? `AND ${pinnedHere(dialect, 'job_chunks')}` : ''}
      RETURNING start_idx, end_idx, attempts, stalled_claims, lease_until`,
    ),
    [worker.workerId, token, worker.leaseMs, chunk.jobId, chunk.no, ...(pinned ? [worker.egress, worker.pinMs ?? 0] : [])],
  )) as { start_idx: number; end_idx: number; attempts: number; stalled_claims: number; lease_until: number | bigint | string }[];
  const row = rows[0];
  if (!row) return null;
  return {
    startIdx: Number(row.start_idx),
    endIdx: Number(row.end_idx),
    attempts: Number(row.attempts),
    stalledClaims: Number(row.stalled_claims),
    token,
    leaseUntil: Number(row.lease_until),
  };
}

/** The claim a worker holds: the chunk, its lease, its job's owner and (pg-boss) the delivery that brings it back. */
export function chunkClaim(chunk: ChunkRef, lease: Lease, owner: ChunkOwner, delivery?: ChunkClaim['delivery']): ChunkClaim {
  const { leaseUntil: _until, ...held } = lease;
  return { jobId: chunk.jobId, no: chunk.no, ...held, userId: owner.userId, sandbox: owner.sandbox, ...(delivery ? { delivery } : {}) };
}

/** A chunk any worker may claim now: pending and due, or leased under a lease that ran out. */
export const claimable = (dialect: Dialect, c = 'c') =>
  `((${c}.state = 'pending' AND ${c}.not_before <= ${dbNow(dialect)}) OR (${c}.state = 'leased' AND ${c}.lease_until < ${dbNow(dialect)}))`;
/** The claim's own chunk row: `job_id`, `no` and `claim_token` as parameters. */
export const HELD = `job_id = ? AND no = ? AND state = 'leased' AND claim_token = ?`;
const PROGRESS = `UPDATE job_chunks SET stalled_claims = 0 WHERE ${HELD} AND stalled_claims > 0`;

/** Extends this claim's lease by `leaseMs` from now (database clock); false when the claim is no longer held. */
export async function renewLease({ prisma, dialect }: Database, chunk: ChunkClaim, leaseMs: number): Promise<boolean> {
  const count = await prisma.$executeRawUnsafe(
    q(dialect, `UPDATE job_chunks SET lease_until = ${dbNow(dialect)} + ? WHERE ${HELD}`),
    leaseMs,
    chunk.jobId,
    chunk.no,
    chunk.token,
  );
  return count === 1;
}

/** Whether this claim still holds its chunk (not cancelled, failed, taken over or done). */
export async function claimHeld(database: Database, chunk: ChunkClaim): Promise<boolean> {
  const rows = await selectRows<{ one: number }>(database, `SELECT 1 AS one FROM job_chunks WHERE ${HELD}`, [chunk.jobId, chunk.no, chunk.token]);
  return rows.length === 1;
}

/**
 * Stores results of a chunk only while its claim holds, in one transaction with that check: a
 * cancel (which ends the job and refunds what is not stored, lib/jobs/worker/lifecycle.ts) is either
 * before the save, which then stores nothing, or after it, and charges what it stored (each
 * database's way: lib/db/insert-while-held.ts). False when nothing was stored because the claim is gone.
 * A claim that stored results made progress: the chunk's stalled claims start again from none
 * (`PROGRESS`), so only claims in a row that stored nothing (a worker dying on the same address
 * each time) add up to failing the job, however often a fleet's workers are killed under it.
 */
export async function saveChunkResults(database: Database, chunk: ChunkClaim, rows: unknown[][]): Promise<boolean> {
  const args = [chunk.jobId, chunk.no, chunk.token];
  // One save of the claim carries the reset; the claim's saves beside it skip it (each would wait
  // for the others' FOR SHARE on the chunk's row), and a save that stored nothing gives it back.
  const stalled = chunk.stalledClaims;
  const resets = stalled > 0 && rows.length > 0;
  if (resets) chunk.stalledClaims = 0;
  let saved = false;
  try {
    saved = await insertWhileHeld(database, {
      held: { sql: `SELECT 1 FROM job_chunks WHERE ${HELD}`, values: args },
      table: 'verifications',
      columns: VERIFICATION_COLUMNS,
      types: VERIFICATION_PG_TYPES,
      rows,
      // the one unique key a result can meet (the serial id cannot): the others are not probed
      suffix: 'ON CONFLICT (job_id, idx) DO NOTHING',
      after: resets ? { sql: PROGRESS, values: args } : null,
      results: true,
    });
  } finally {
    if (resets && !saved) chunk.stalledClaims = stalled;
  }
  return saved;
}

/** Marks the claim's chunk done, in the caller's transaction; false when the claim is no longer held (cancelled, taken over). */
export async function completeChunk(tx: Tx, dialect: Dialect, chunk: ChunkClaim): Promise<boolean> {
  const count = await tx.$executeRawUnsafe(q(dialect, `UPDATE job_chunks SET state = 'done' WHERE ${HELD}`), chunk.jobId, chunk.no, chunk.token);
  return count === 1;
}

/**
 * Hands the claim's chunk back: claimable again `delayMs` from now (database clock), marked with
 * `egress` (where a greylisted retry should go out from); `countAttempt: false` takes back the
 * claim's attempt. Returns the chunk's new `not_before`, or null when the claim no longer held it.
 */
export async function releaseRow(
  tx: Tx,
  dialect: Dialect,
  chunk: ChunkClaim,
  delayMs: number,
  countAttempt: boolean,
  egress: string | null,
): Promise<number | null> {
  const rows = await tx.$queryRawUnsafe<{ not_before: number | bigint }[]>(
    q(
      dialect,
      `UPDATE job_chunks SET state = 'pending', worker_id = NULL, claim_token = NULL, lease_until = 0, not_before = ${dbNow(dialect)} + ?, attempts = attempts - ?, stalled_claims = CASE WHEN stalled_claims > 0 THEN stalled_claims - ? ELSE 0 END, egress = ?
      WHERE ${HELD} RETURNING not_before`,
    ),
    Math.round(delayMs),
    countAttempt ? 0 : 1,
    countAttempt ? 0 : 1,
    egress,
    chunk.jobId,
    chunk.no,
    chunk.token,
  );
  return rows[0] ? Number(rows[0].not_before) : null;
}

export async function openChunkCount(tx: Tx, dialect: Dialect, jobId: string): Promise<number> {
  const rows = await tx.$queryRawUnsafe<{ n: number | bigint }[]>(
    q(dialect, `SELECT COUNT(*) AS n FROM job_chunks WHERE job_id = ? AND state <> 'done'`),
    jobId,
  );
  return Number(rows[0]?.n ?? 0);
}

export async function cancelChunks(tx: Pick<Db, '$executeRawUnsafe'>, dialect: Dialect, jobId: string): Promise<void> {
  await tx.$executeRawUnsafe(q(dialect, `UPDATE job_chunks SET state = 'cancelled', claim_token = NULL WHERE job_id = ? AND state <> 'done'`), jobId);
}

/** Unfinished jobs none of whose chunks is open: their finishing was lost (a crash between the last chunk and the job). */
export async function strandedJobs({ prisma, dialect }: Database, limit = 100): Promise<string[]> {
  const rows = await prisma.$queryRawUnsafe<{ id: string }[]>(
    q(
      dialect,
      `SELECT j.id FROM jobs j WHERE j.status IN (${OPEN_SQL})
      AND NOT EXISTS (SELECT 1 FROM job_chunks c WHERE c.job_id = j.id AND c.state <> 'done') LIMIT ?`,
    ),
    limit,
  );
  return rows.map((row) => row.id);
}
