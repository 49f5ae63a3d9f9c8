import type { Database, Db } from '../db/client';
import { insertRows, q } from '../db/sql';

/**
 * The credit ledger (`credit_ledger`, docs/guarantees.md): every movement of credits and free
 * verifications is an append-only row tied to its cause, written in the transaction of the state it
 * pays for. The unique (cause, kind) index makes each movement happen once: a cause has at most one
 * reserve, one charge and one refund. A cause is a job id (`job_…`), a single check (`chk_…`), a
 * grant (`grant_…`), or an account's opening balance from before the ledger (`opening_…`).
 *
 * A reservation is settled by its charge row, written even when it charges nothing: the charge
 * row is what says "settled", and only the writer whose charge row went in refunds the rest.
 */
export type MovementKind = 'grant' | 'reserve' | 'charge' | 'refund';

export interface Movement {
  userId: string;
  kind: MovementKind;
  cause: string;
  credits: number;
  free: number;
  day: string | null;
}

export type LedgerTx = Pick<Db, '$executeRawUnsafe' | '$queryRawUnsafe'>;

const COLUMNS = ['user_id', 'kind', 'cause', 'credits', 'free', 'day', 'created_at'];
const values = (m: Movement, at: number) => [m.userId, m.kind, m.cause, m.credits, m.free, m.day, at];

/** Appends movements; a duplicate (cause, kind) fails the caller's transaction. */
export async function appendMovements(tx: LedgerTx, dialect: Database['dialect'], movements: Movement[], at = Date.now()): Promise<void> {
  if (movements.length > 0) await insertRows(tx, dialect, 'credit_ledger', COLUMNS, movements.map((m) => values(m, at)));
}

/** A reservation to settle: its cause, what it took and how much of it the work used. */
export interface Settlement {
  userId: string;
  cause: string;
  day: string;
  free: number;
  credits: number;
  /** verifications the stored results are charged for (at most free + credits) */
  charged: number;
}

/** What goes back: credits first, then free verifications, as refunds always have. */
export function unusedOf(s: Settlement): { credits: number; free: number } {
  const unused = Math.max(0, s.free + s.credits - s.charged);
  const credits = Math.min(unused, s.credits);
  return { credits, free: Math.min(unused - credits, s.free) };
}

/**
 * Settles reservations in the caller's transaction: a charge row each (the part used) and a refund
 * row with the balance given back for the unused part. Returns the causes settled now; one already
 * settled (by the sweeper, or a retry) is left as it was and is not in the set, so its caller must
 * not store the results it was for.
 */
export async function settleIn(tx: LedgerTx, dialect: Database['dialect'], settlements: Settlement[], at = Date.now()): Promise<Set<string>> {
  const won = new Set<string>();
  if (settlements.length === 0) return won;
  const charges = settlements.map((s) => {
    const unused = unusedOf(s);
    return { userId: s.userId, kind: 'charge' as const, cause: s.cause, credits: s.credits - unused.credits, free: s.free - unused.free, day: s.day };
  });
  const marks = charges.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ');
  const inserted = await tx.$queryRawUnsafe<{ cause: string }[]>(
    q(dialect, `INSERT INTO credit_ledger (user_id, kind, cause, credits, free, day, created_at) VALUES ${marks} ON CONFLICT DO NOTHING RETURNING cause`),
    ...charges.flatMap((m) => values(m, at)),
  );
  for (const row of inserted) won.add(row.cause);
  const refunds: Movement[] = [];
  for (const s of settlements) {
    if (!won.has(s.cause)) continue;
    const unused = unusedOf(s);
    if (unused.credits + unused.free === 0) continue;
    refunds.push({ userId: s.userId, kind: 'refund', cause: s.cause, credits: unused.credits, free: unused.free, day: s.day });
    if (unused.credits > 0) await tx.$executeRawUnsafe(q(dialect, 'UPDATE users SET credits = credits + ? WHERE id = ?'), unused.credits, s.userId);
    if (unused.free > 0) await tx.$executeRawUnsafe(q(dialect, 'UPDATE usage_days SET used = used - ? WHERE user_id = ? AND day = ?'), unused.free, s.userId, s.day);
  }
  await appendMovements(tx, dialect, refunds, at);
  return won;
}

/** The reserve row of a cause and whether it is settled: how a retry finds what its first attempt took. */
export async function reservationOf(tx: LedgerTx, dialect: Database['dialect'], cause: string) {
  const rows = await tx.$queryRawUnsafe<{ kind: string; credits: number; free: number; day: string | null }[]>(
    q(dialect, `SELECT kind, credits, free, day FROM credit_ledger WHERE cause = ? AND kind IN ('reserve', 'charge')`), cause,
  );
  const reserve = rows.find((r) => r.kind === 'reserve');
  if (!reserve) return null;
  return { credits: Number(reserve.credits), free: Number(reserve.free), day: reserve.day, settled: rows.some((r) => r.kind === 'charge') };
}
