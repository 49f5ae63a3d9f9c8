import { type Settlement, settleIn, settlePlan, wholeCharges } from '../accounts/ledger';
import type { Database } from './client';
import { runPlanOn } from './plan-executors';
import { insertRows, insertTogether, sqliteInsert } from './sql';

/**
 * Rows that are paid for by reservations (single checks' history rows, lib/results/history.ts),
 * stored in the transaction that settles those reservations (lib/accounts/ledger.ts). `keep` says,
 * from the causes whose settlement went in now, which rows to store and which causes lost: a
 * reservation the sweeper already gave back does not pay for a row.
 */
export interface SettledInsert {
  settlements: Settlement[];
  table: string;
  columns: readonly string[];
  rows: unknown[][];
  keep(won: Set<string>): { lost: Set<string>; rows: unknown[][] };
}

/** a statement's bound values PostgreSQL's one-statement path stays under */
const ONE_STATEMENT_VALUES = 30_000;

/**
 * Settles and stores; answers the causes that lost. On PostgreSQL, reservations used whole (nothing
 * to refund) and a batch small enough are charged with their rows in ONE statement, a data-modifying
 * WITH (one round trip where a transaction takes four; the charge rows: `wholeCharges`,
 * lib/accounts/ledger.ts); if any cause was settled already it fails whole and the transaction below
 * sorts winners from losers. On SQLite one synchronous transaction on the direct connection (the
 * settlement's plan run on it), as unpaid rows take.
 */
export async function insertSettled(database: Database, plan: SettledInsert): Promise<Set<string>> {
  const { bulk, writeLock, prisma, dialect } = database;
  const { settlements, table, columns } = plan;
  if (!bulk && settlements.every((s) => s.charged === s.free + s.credits) && plan.rows.length * columns.length < ONE_STATEMENT_VALUES) {
    try {
      await insertTogether(prisma, wholeCharges(settlements), { table, columns, rows: plan.rows });
      return new Set();
    } catch {
      // a cause was settled already (or the statement failed): the transaction below sorts it out
    }
  }
  if (bulk && writeLock) {
    return writeLock.run(() =>
      bulk.transaction(() => {
        const { lost, rows } = plan.keep(runPlanOn(bulk, settlePlan(settlements)));
        sqliteInsert(bulk, table, columns, rows);
        return lost;
      })(),
    );
  }
  return prisma.$transaction(async (tx) => {
    const { lost, rows } = plan.keep(await settleIn(tx, dialect, settlements));
    await insertRows(tx, dialect, table, columns, rows);
    return lost;
  });
}
