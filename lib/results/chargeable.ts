import type { Database, Db } from '../db/client';
import { q } from '../db/sql';
import { RULED_REASONS } from '../verifier/rule-match';
import type { Verdict } from '../verifier/types';

/**
 * What is charged, in TypeScript and in SQL side by side so the two cannot drift apart: an answer
 * the server gave. Bad syntax, `unknown` and a verdict an allow or block rule gave are free.
 */
export function isChargeable(verdict: Pick<Verdict, 'status' | 'reason'>): boolean {
  return verdict.status !== 'unknown' && verdict.reason !== 'invalid_email' && !(RULED_REASONS as readonly string[]).includes(verdict.reason);
}

/** SQL: the row was not decided by a rule. */
export const NOT_RULED = `reason NOT IN (${RULED_REASONS.map((r) => `'${r}'`).join(', ')})`;

/**
 * The SQL form of `isChargeable` above, a condition on a `verifications` row (the ledger's audit and the usage report use it too).
 * A row answered from an earlier result of the account (`reused_at`, lib/jobs/intake/reuse.ts) is never charged.
 */
export const CHARGEABLE_SQL = `reused_at IS NULL AND status <> 'unknown' AND reason <> 'invalid_email' AND ${NOT_RULED}`;

/** A job's results that are charged: those stored and those erased since (lib/retention/usage-kept.ts). */
export async function chargeableCount(tx: Pick<Db, '$queryRawUnsafe'>, dialect: Database['dialect'], jobId: string): Promise<number> {
  const rows = await tx.$queryRawUnsafe<{ n: number | bigint }[]>(
    q(
      dialect,
      `SELECT (SELECT COUNT(*) FROM verifications WHERE job_id = ? AND ${CHARGEABLE_SQL})
      + COALESCE((SELECT kept_chargeable FROM jobs WHERE id = ?), 0) AS n`,
    ),
    jobId,
    jobId,
  );
  return Number(rows[0]?.n ?? 0);
}
