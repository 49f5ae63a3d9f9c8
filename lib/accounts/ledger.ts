import type { Database } from '../db/client';
import { ask, type Plan } from '../db/plan';
import { runPlanIn, type PlanTx } from '../db/plan-executors';
import { q, type TableRows } from '../db/sql';
import { GIVE_BACK_SQL, giveBackKeys } from './member-caps';

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
  /** a reserve row: the process holding it (lib/accounts/owners.ts) */
  owner?: string | null;
  /** a reserve row: the person whose charged checks it counted (lib/accounts/member-caps.ts); null: none */
  actor?: string | null;
}

export type LedgerTx = PlanTx;

const COLUMNS = ['user_id', 'kind', 'cause', 'credits', 'free', 'day', 'created_at', 'owner', 'actor_id'];
const values = (m: Movement, at: number) => [m.userId, m.kind, m.cause, m.credits, m.free, m.day, at, m.owner ?? null, m.actor ?? null];

/** Appends movements, as a step of a plan; a duplicate (cause, kind) fails the transaction. */
export function* appendMovementsStep(movements: Movement[], at = Date.now()): Plan<void> {
  if (movements.length > 0)
    yield* ask(
      'insert',
      'credit_ledger',
      COLUMNS,
      movements.map((m) => values(m, at)),
    );
}

/** appendMovements in the caller's transaction. */
export function appendMovements(tx: LedgerTx, dialect: Database['dialect'], movements: Movement[], at = Date.now()): Promise<void> {
  return runPlanIn(tx, dialect, appendMovementsStep(movements, at));
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
 * The charge rows of reservations used whole (nothing to refund), as `credit_ledger` rows: the
 * database may write them in one statement with the rows they pay for (lib/db/settled-insert.ts),
 * without ON CONFLICT, so that if any cause was already settled the statement fails whole and
 * stores nothing, and the caller settles through `settleIn`, which sorts winners from losers.
 */
export function wholeCharges(settlements: Settlement[], at = Date.now()): TableRows {
  const charges = settlements.map((s) => values({ userId: s.userId, kind: 'charge', cause: s.cause, credits: s.credits, free: s.free, day: s.day }, at));
  return { table: 'credit_ledger', columns: COLUMNS, rows: charges };
}

/**
 * A settlement's statements: the charge rows (the gate), then, for the causes whose charge went in,
 * the balance given back and the refund rows. Returns the causes settled now.
 */
export function* settlePlan(settlements: Settlement[], at = Date.now()): Plan<Set<string>> {
  if (settlements.length === 0) return new Set();
  const charges = settlements.map((s) => {
    const unused = unusedOf(s);
    return values({ userId: s.userId, kind: 'charge', cause: s.cause, credits: s.credits - unused.credits, free: s.free - unused.free, day: s.day }, at);
  });
  const gate = `INSERT INTO credit_ledger (${COLUMNS.join(', ')}) VALUES ${charges.map(() => `(${COLUMNS.map(() => '?').join(', ')})`).join(', ')} ON CONFLICT DO NOTHING RETURNING cause`;
  const won = new Set((yield* ask('query', gate, charges.flat())).map((row) => row.cause as string));
  const refunds: unknown[][] = [];
  for (const s of settlements) {
    const unused = unusedOf(s);
    if (!won.has(s.cause) || unused.credits + unused.free === 0) continue;
    refunds.push(values({ userId: s.userId, kind: 'refund', cause: s.cause, credits: unused.credits, free: unused.free, day: s.day }, at));
    if (unused.credits > 0) yield* ask('execute', 'UPDATE users SET credits = credits + ? WHERE id = ?', [unused.credits, s.userId]);
    if (unused.free > 0) yield* ask('execute', 'UPDATE usage_days SET used = used - ? WHERE user_id = ? AND day = ?', [unused.free, s.userId, s.day]);
    // the person the reservation counted against gets it back (lib/accounts/member-caps.ts)
    for (const [i, key] of giveBackKeys(s.day).entries()) yield* ask('execute', GIVE_BACK_SQL[i]!, [unused.credits + unused.free, s.userId, key, s.cause]);
  }
  if (refunds.length > 0) yield* ask('insert', 'credit_ledger', COLUMNS, refunds);
  return won;
}

/**
 * Settles reservations in the caller's transaction: a charge row each (the part used) and a refund
 * row with the balance given back for the unused part. Returns the causes settled now; one already
 * settled (by the sweeper, or a retry) is left as it was and is not in the set, so its caller must
 * not store the results it was for.
 */
export function settleIn(tx: LedgerTx, dialect: Database['dialect'], settlements: Settlement[], at = Date.now()): Promise<Set<string>> {
  return runPlanIn(tx, dialect, settlePlan(settlements, at));
}

/** The reserve row of a cause and whether it is settled: how a retry finds what its first attempt took. */
export async function reservationOf(tx: LedgerTx, dialect: Database['dialect'], cause: string) {
  const rows = await tx.$queryRawUnsafe<{ kind: string; credits: number; free: number; day: string | null; owner: string | null }[]>(
    q(dialect, `SELECT kind, credits, free, day, owner FROM credit_ledger WHERE cause = ? AND kind IN ('reserve', 'charge')`),
    cause,
  );
  const reserve = rows.find((r) => r.kind === 'reserve');
  if (!reserve) return null;
  return {
    credits: Number(reserve.credits),
    free: Number(reserve.free),
    day: reserve.day,
    owner: reserve.owner,
    settled: rows.some((r) => r.kind === 'charge'),
  };
}

/**
 * Moves a reserve row from the owner read to `to`, only if it still has that owner: an
 * Idempotency-Key retry taking over its dead first attempt's reservation, or the sweeper taking it
 * back; of the two (PostgreSQL re-checks the condition on the row it waited for) one wins.
 */
export async function moveOwner(tx: LedgerTx, dialect: Database['dialect'], cause: string, from: string | null, to: string): Promise<boolean> {
  const moved = await tx.$executeRawUnsafe(
    q(dialect, `UPDATE credit_ledger SET owner = ? WHERE cause = ? AND kind = 'reserve' AND COALESCE(owner, '') = ?`),
    to,
    cause,
    from ?? '',
  );
  return moved === 1;
}
