import type { Database } from '../db/client';
import { q } from '../db/sql';
import { env } from '../config/env';
import { tokenOfCause } from './causes';
import { settleIn } from './ledger';

/**
 * Gives back reservations whose work never got stored: a single check or an instant bulk whose
 * process died between reserving and storing (they settle in the transaction that stores their
 * rows), a queued job whose row never got written. A reservation is swept once it is older than
 * EV_RESERVATION_TIMEOUT_MS, has no charge row and no job row (a job's reservation is settled when
 * the job ends, lib/jobs/lifecycle.ts). Every server and worker process sweeps, every quarter of the
 * bound (at most a minute); two sweeping at once are safe, the charge row lets one settle. Only the
 * last LOOKBACK_MS of reservations are read, so a sweep stays an index range however long the
 * ledger; older open reservations are the audit's to name (lib/accounts/audit.ts).
 */
const LOOKBACK_MS = 7 * 24 * 3600 * 1000;
const BATCH = 100;

export async function sweepReservations(database: Database, boundMs = env().EV_RESERVATION_TIMEOUT_MS, now = Date.now()): Promise<number> {
  const { prisma, dialect } = database;
  const stale = await prisma.$queryRawUnsafe<{ user_id: string; cause: string; credits: number; free: number; day: string | null }[]>(
    q(dialect, `SELECT r.user_id, r.cause, r.credits, r.free, r.day FROM credit_ledger r
      WHERE r.kind = 'reserve' AND r.created_at < ? AND r.created_at >= ?
        AND NOT EXISTS (SELECT 1 FROM credit_ledger c WHERE c.cause = r.cause AND c.kind = 'charge')
        AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.id = r.cause)
      ORDER BY r.created_at LIMIT ${BATCH}`),
    now - boundMs, now - boundMs - LOOKBACK_MS,
  );
  let swept = 0;
  for (const row of stale) {
    const settlement = { userId: row.user_id, cause: row.cause, day: row.day ?? '', credits: Number(row.credits), free: Number(row.free), charged: 0 };
    const won = await prisma.$transaction(async (tx) => {
      if (!(await settleIn(tx, dialect, [settlement])).has(row.cause)) return false;
      // the Idempotency-Key this work ran under, if its request died holding it: free for a fresh retry
      const token = tokenOfCause(row.cause);
      if (token) await tx.$executeRawUnsafe(q(dialect, `DELETE FROM idempotency_keys WHERE user_id = ? AND token = ? AND state = 'running'`), row.user_id, token);
      return true;
    });
    if (won) swept++;
  }
  if (swept > 0) console.log(`[books] gave back ${swept} reservation${swept === 1 ? '' : 's'} whose work was never stored`);
  return swept;
}

/** Sweeps every quarter of the bound (at least every minute) until the returned function is called. */
export function startReservationSweeper(database: Database): () => void {
  const every = Math.min(60_000, Math.max(250, Math.floor(env().EV_RESERVATION_TIMEOUT_MS / 4)));
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    sweepReservations(database)
      .catch((error) => console.error(`[books] reservation sweep failed: ${error}`))
      .finally(() => { running = false; });
  }, every);
  timer.unref();
  return () => clearInterval(timer);
}
