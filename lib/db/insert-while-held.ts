import type pg from 'pg';
import type { Database } from './client';
import { sqliteSaveResults } from './job-progress';
import { heldConnection, inTransaction } from './pg-connection';
import { arraysInsert, insertArrays, insertRows, prepared, q, sqliteInsert } from './sql';

/** SQL written with `?` placeholders, and its values. */
export interface Statement {
  sql: string;
  values: unknown[];
}

/**
 * Rows stored only while a row they depend on is held (a chunk's results while its claim holds,
 * lib/jobs/queue/ledger.ts), checked in the same transaction as the insert, so whatever ends the
 * hold (a cancel) is either before the save, which then stores nothing, or after it.
 */
export interface HeldInsert {
  /** a SELECT that finds the held row (no locking clause: each engine adds its own) */
  held: Statement;
  table: string;
  columns: readonly string[];
  rows: unknown[][];
  /** e.g. ON CONFLICT DO NOTHING */
  suffix: string;
  /** each column's PostgreSQL type: the rows then go as one array per column (`insertArrays`) */
  types?: Readonly<Record<string, string>>;
  /** a statement that follows a save that stored rows (null: none) */
  after: Statement | null;
  /** the rows are results of jobs (`verifications`): SQLite counts them into their jobs' progress in the same transaction (lib/db/job-progress.ts) */
  results?: boolean;
}

/**
 * Runs a HeldInsert; false when nothing was stored because the row was no longer held.
 * PostgreSQL locks the held row FOR SHARE (saves of one holder do not wait on each other) and runs
 * `after` once it has committed: inside, two saves holding FOR SHARE would deadlock on it. SQLite's direct
 * connection takes the write lock first (BEGIN IMMEDIATE) and runs it all in one transaction.
 */
export async function insertWhileHeld(database: Database, plan: HeldInsert): Promise<boolean> {
  const { bulk, writeLock, prisma, dialect } = database;
  const stores = plan.rows.length > 0;
  if (bulk && writeLock) {
    const check = prepared(bulk, plan.held.sql);
    const after = plan.after && prepared(bulk, plan.after.sql);
    return writeLock.run(() =>
      bulk
        .transaction(() => {
          if (!check.get(...plan.held.values)) return false;
          if (plan.results) sqliteSaveResults(bulk, plan.columns, plan.rows, plan.suffix);
          else sqliteInsert(bulk, plan.table, plan.columns, plan.rows, plan.suffix);
          if (stores && after) after.run(...(plan.after?.values ?? []));
          return true;
        })
        .immediate(),
    );
  }
  if (database.pool && plan.types) return pgInsertWhileHeld(database.pool, plan);
  const saved = await prisma.$transaction(
    async (tx) => {
      const held = await tx.$queryRawUnsafe<unknown[]>(q(dialect, `${plan.held.sql} FOR SHARE`), ...plan.held.values);
      if (held.length !== 1) return false;
      if (stores && plan.types) await insertArrays(tx, plan.table, plan.columns, plan.types, plan.rows, plan.suffix);
      else if (stores) await insertRows(tx, dialect, plan.table, plan.columns, plan.rows, plan.suffix);
      return true;
    },
    { timeout: 60_000, maxWait: 30_000 },
  );
  if (saved && stores && plan.after) await prisma.$executeRawUnsafe(q(dialect, plan.after.sql), ...plan.after.values);
  return saved;
}

/**
 * PostgreSQL's save of rows sent as column arrays, on a connection of the pool Prisma's adapter uses
 * (Database.pool, lib/db/pg-connection.ts): the same transaction and statements as through Prisma
 * (BEGIN, the held row `FOR SHARE`, the INSERT, COMMIT, then `after`), without Prisma encoding the
 * arrays' text as JSON and decoding it again, which cost more CPU than building it (docs/benchmarks.md).
 */
function pgInsertWhileHeld(pool: pg.Pool, plan: HeldInsert): Promise<boolean> {
  const stores = plan.rows.length > 0;
  return heldConnection(pool, async (client) => {
    // a claim no longer held writes nothing: its transaction commits empty
    const saved = await inTransaction(client, async () => {
      const held = await client.query(`${q('postgres', plan.held.sql)} FOR SHARE`, plan.held.values);
      if (held.rowCount !== 1) return false;
      if (stores) {
        const insert = arraysInsert(plan.table, plan.columns, plan.types!, plan.rows, plan.suffix);
        await client.query(insert.sql, insert.values);
      }
      return true;
    });
    if (saved && stores && plan.after) await client.query(q('postgres', plan.after.sql), plan.after.values);
    return saved;
  });
}
