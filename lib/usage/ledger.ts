import type { Database } from '../db/client';
import { selectRows } from '../db/sql';
import { CHARGEABLE_SQL } from '../verifications/chargeable';
import { daySql, dayOf, msRange, type DayRange } from './days';

/** What the quota moved on one UTC day (production only: the sandbox is never charged). */
export interface LedgerDay {
  /** verifications counted against the quota: today's free ones first, then credits */
  charged: number;
  /** reserved and given back (answers that are not charged, the unused part of a job's reservation) */
  refunded: number;
  /** credits added to the account; null: this installation does not record grants */
  granted: number | null;
}

/**
 * The quota's movements per day. There is no ledger of movements yet, so they are derived: charged
 * from the chargeable, uncached production rows of `verifications` (lib/verifications/chargeable.ts),
 * refunded from ended jobs' reservations less their charged rows and from single checks answered
 * `unknown`; grants are not recorded (scripts/grant-credits.ts only adds to the balance). When a
 * ledger of grant/reserve/charge/refund rows exists, this one function reads it instead.
 */
export async function ledgerByDay(database: Database, userId: string, range: DayRange): Promise<Map<string, LedgerDay>> {
  const [start, end] = msRange(range);
  const production = database.dialect === 'postgres' ? 'NOT sandbox' : 'sandbox = 0';
  const notCached = database.dialect === 'postgres' ? 'NOT cached' : 'cached = 0';
  const rows = await selectRows<{ day: string; charged: number | bigint; refunded: number | bigint }>(database,
    `SELECT ${daySql(database)} AS day,
      SUM(CASE WHEN ${CHARGEABLE_SQL} THEN 1 ELSE 0 END) AS charged,
      SUM(CASE WHEN job_id IS NULL AND status = 'unknown' THEN 1 ELSE 0 END) AS refunded
    FROM verifications WHERE user_id = ? AND ${production} AND ${notCached} AND created_at >= ? AND created_at < ? GROUP BY 1`,
    [userId, start, end]);
  const days = new Map<string, LedgerDay>(rows.map((row) => [row.day, { charged: Number(row.charged), refunded: Number(row.refunded), granted: null }]));
  for (const job of await endedJobs(database, userId, start, end)) {
    const day = days.get(dayOf(job.createdAt.getTime())) ?? { charged: 0, refunded: 0, granted: null };
    day.refunded += Math.max(0, job.reserved - job.charged);
    days.set(dayOf(job.createdAt.getTime()), day);
  }
  return days;
}

/** Production jobs created in the range that have ended (their refund is done), with what they charged. */
async function endedJobs(database: Database, userId: string, start: number, end: number) {
  const jobs = await database.prisma.job.findMany({
    where: { userId, sandbox: false, status: { in: ['completed', 'failed', 'cancelled'] }, createdAt: { gte: new Date(start), lt: new Date(end) } },
    select: { id: true, createdAt: true, reservedFree: true, reservedCredits: true },
  });
  if (jobs.length === 0) return [];
  const charged = await selectRows<{ job_id: string; n: number | bigint }>(database,
    `SELECT job_id, COUNT(*) AS n FROM verifications WHERE user_id = ? AND job_id IN (${jobs.map(() => '?').join(', ')}) AND ${CHARGEABLE_SQL} GROUP BY job_id`,
    [userId, ...jobs.map((job) => job.id)]);
  const byJob = new Map(charged.map((row) => [row.job_id, Number(row.n)]));
  return jobs.map((job) => ({ createdAt: job.createdAt, reserved: job.reservedFree + job.reservedCredits, charged: byJob.get(job.id) ?? 0 }));
}
