import type { Database } from '../db/client';
import { q } from '../db/sql';
import { env } from '../config/env';
import { tokenOfCause } from './causes';
import { moveOwner, settleIn } from './ledger';
import { ownerId, ownerStaleMs } from './owners';

/**
 * Gives back reservations whose work will never be stored: a single check or an instant bulk whose
 * process died between reserving and storing (they settle in the transaction that stores their
 * rows), a queued job whose row never got written. A reservation is held by its owner, the process
 * that made it (lib/accounts/owners.ts): it is swept once that owner has stopped beating for
 * `ownerStaleMs()` (EV_RESERVATION_TIMEOUT_MS, within 3 to 30 s) and it has no charge row and no
 * job row (a job's reservation is settled when the job ends, lib/jobs/worker/lifecycle.ts). A reservation whose owner beats is never swept, however old: its
 * job may be being inserted right now. Rows from before owners (`owner` null) are swept once older
 * than EV_RESERVATION_TIMEOUT_MS. Every server and worker process sweeps, every quarter of that
 * bound and at least every 15 s; two sweeping at once are safe, the charge row lets one settle, and
 * taking the row from its dead owner (`moveOwner`) lets either a retry that takes the reservation
 * over or the sweeper have it, not both. Only the last LOOKBACK_MS of reservations are read, so a
 * sweep stays an index range however long the ledger; older open reservations are the audit's to
 * name (lib/accounts/audit.ts).
 */
const LOOKBACK_MS = 7 * 24 * 3600 * 1000;
const BATCH = 100;
/** the longest wait between sweeps: a dead owner's credits are back within ownerStaleMs() + this */
const SWEEP_EVERY_MS = 15_000;

export async function sweepReservations(database: Database, boundMs = env().EV_RESERVATION_TIMEOUT_MS, now = Date.now()): Promise<number> {
  const { prisma, dialect } = database;
  const stale = await prisma.$queryRawUnsafe<{ user_id: string; cause: string; credits: number; free: number; day: string | null; owner: string | null }[]>(
    q(
      dialect,
      `SELECT r.user_id, r.cause, r.credits, r.free, r.day, r.owner FROM credit_ledger r
      WHERE r.kind = 'reserve' AND r.created_at >= ?
        AND ((r.owner IS NULL AND r.created_at < ?)
          OR (r.owner IS NOT NULL AND NOT EXISTS (SELECT 1 FROM ledger_owners o WHERE o.owner = r.owner AND o.heartbeat_at >= ?)))
        AND NOT EXISTS (SELECT 1 FROM credit_ledger c WHERE c.cause = r.cause AND c.kind = 'charge')
        AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.id = r.cause)
      ORDER BY r.created_at LIMIT ${BATCH}`,
    ),
    now - boundMs - LOOKBACK_MS,
    now - boundMs,
    now - ownerStaleMs(),
  );
  let swept = 0;
  const sweeper = stale.length > 0 ? await ownerId(database) : '';
  for (const row of stale) {
    const settlement = { userId: row.user_id, cause: row.cause, day: row.day ?? '', credits: Number(row.credits), free: Number(row.free), charged: 0 };
    const won = await prisma
      .$transaction(async (tx) => {
        // still its dead owner's (a retry of its Idempotency-Key may have taken it over since the read)
        if (!(await moveOwner(tx, dialect, row.cause, row.owner, sweeper))) return false;
        // and still no job: a job row is written with its reservation's owner beating, so this only
        // re-checks a read that was a moment old
        const jobs = await tx.$queryRawUnsafe<unknown[]>(q(dialect, 'SELECT 1 FROM jobs WHERE id = ?'), row.cause);
        if (jobs.length > 0) throw new JobAppeared();
        if (!(await settleIn(tx, dialect, [settlement])).has(row.cause)) return false;
        // the Idempotency-Key this work ran under, if its request died holding it: free for a fresh retry
        const token = tokenOfCause(row.cause);
        if (token)
          await tx.$executeRawUnsafe(q(dialect, `DELETE FROM idempotency_keys WHERE user_id = ? AND token = ? AND state = 'running'`), row.user_id, token);
        return true;
      })
      .catch((error: unknown) => {
        if (error instanceof JobAppeared) return false;
        throw error;
      });
    if (won) swept++;
  }
  // owners that stopped beating an hour ago: a missing row is a dead owner as well (a live one that
  // was only late writes its row again at its next beat, lib/accounts/owners.ts)
  await prisma.$executeRawUnsafe(q(dialect, 'DELETE FROM ledger_owners WHERE heartbeat_at < ?'), now - 3600 * 1000);
  if (swept > 0) console.log(`[books] gave back ${swept} reservation${swept === 1 ? '' : 's'} whose work was never stored`);
  return swept;
}

/** The job row appeared after the read: the reservation is the job's (the transaction rolls back). */
class JobAppeared extends Error {}

/** Sweeps every quarter of the bound (at least every 15 s) until the returned function is called. */
export function startReservationSweeper(database: Database): () => void {
  const every = Math.min(SWEEP_EVERY_MS, Math.max(250, Math.floor(env().EV_RESERVATION_TIMEOUT_MS / 4)));
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    sweepReservations(database)
      .catch((error) => console.error(`[books] reservation sweep failed: ${error}`))
      .finally(() => {
        running = false;
      });
  }, every);
  timer.unref();
  return () => clearInterval(timer);
}
