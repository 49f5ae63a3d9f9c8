import type { Database } from '../db/client';
import { selectRows } from '../db/sql';
import { daySql, msRange, type DayRange } from './days';

/** What the quota moved on one UTC day (production only: the sandbox is never charged). */
export interface LedgerDay {
  /** verifications counted against the quota: today's free ones first, then credits */
  charged: number;
  /** reserved and given back (answers that are not charged, the unused part of a job's reservation) */
  refunded: number;
  /** credits added to the account */
  granted: number;
}

/**
 * The quota's movements per day, read from the credit ledger (lib/accounts/ledger.ts), on the day
 * each movement was written: a job's charge and refund on the day it ended. Opening balances from
 * before the ledger (`opening_…` causes) are not movements of any day.
 */
export async function ledgerByDay(database: Database, userId: string, range: DayRange): Promise<Map<string, LedgerDay>> {
  const [start, end] = msRange(range);
  const rows = await selectRows<{ day: string; charged: number | bigint; refunded: number | bigint; granted: number | bigint }>(
    database,
    `SELECT ${daySql(database)} AS day,
      SUM(CASE WHEN kind = 'charge' THEN credits + free ELSE 0 END) AS charged,
      SUM(CASE WHEN kind = 'refund' THEN credits + free ELSE 0 END) AS refunded,
      SUM(CASE WHEN kind = 'grant' THEN credits ELSE 0 END) AS granted
    FROM credit_ledger WHERE user_id = ? AND cause NOT LIKE 'opening%' AND created_at >= ? AND created_at < ? GROUP BY 1`,
    [userId, start, end],
  );
  return new Map(rows.map((row) => [row.day, { charged: Number(row.charged ?? 0), refunded: Number(row.refunded ?? 0), granted: Number(row.granted ?? 0) }]));
}
