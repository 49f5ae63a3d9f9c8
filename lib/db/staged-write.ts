import { setImmediate as turn } from 'node:timers/promises';
import type { Database, Db } from './client';
import type { Statement } from './insert-while-held';
import { insertArrays, insertRows, q, type RowSource, sqliteInsert } from './sql';

type Tx = Omit<Db, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'>;

/** Rows of one table, in `columns` order. */
export interface Rows {
  table: string;
  columns: readonly string[];
  rows: unknown[][];
}

/** A row written through Prisma's model in a transaction, or by column on SQLite's direct connection (made when it is written). */
export interface ModelRow {
  create(tx: Tx): Promise<unknown>;
  row(): Rows;
}

/**
 * A write too big for one SQLite transaction that must still appear at once: a queued job (its row,
 * items, reused results and chunks, lib/jobs/intake/insert.ts). Nothing reads the body before the
 * head is written.
 */
export interface StagedWrite {
  /** the row the others belong to: what makes them visible */
  head: ModelRow;
  /** its many rows, `count` of them, made `slice(from, to)` at a time so they are never all in memory */
  body: {
    table: string;
    columns: readonly string[];
    /** each column's PostgreSQL type: its slices then go as one array per column (`insertArrays`) */
    types?: Readonly<Record<string, string>>;
    count: number;
    slice(from: number, to: number): unknown[][];
    /** row `index`'s cells pushed onto `values`, the same as its row in `slice`: what the SQLite path binds (no array per row) */
    cells?: RowSource['cells'];
  };
  /** statements that write more of its rows inside the database, one batch each (made as they run) */
  copies: Iterable<Statement>;
  /** rows written with the head */
  tail: Rows;
  /** the queue engine's part, in the transaction that writes the head (PostgreSQL's deliveries; SQLite's queue is the rows themselves) */
  enqueue(tx: Tx): Promise<void>;
  /** a row that commits with the head (an audit row), or null */
  alongside: ModelRow | null;
  /** what removes the body and copies when the head could not be written */
  undo: Statement[];
}

/** rows of the body per statement batch in the one PostgreSQL transaction (a slice is made at a time) */
const SLICE = 10_000;
/** rows of the body per SQLite transaction: about 10 ms of synchronous writing each (lib/jobs/intake/slices.ts) */
const SQLITE_SLICE = 2_000;

/**
 * Writes a StagedWrite so that nothing half-written is ever visible. PostgreSQL goes through Prisma in
 * one transaction (its statements wait on the network, not on this event loop). On SQLite the direct
 * connection writes synchronously, so a million rows in one transaction would hold the server for
 * seconds: the body and copies go in slices of their own transactions, each taking its turn in the
 * write queue, and the head with its tail last, in one. Until then nothing reads them (a job's chunks
 * are claimed through its row). If that fails the body is deleted; a crash leaves it unreferenced.
 */
export async function writeStaged(database: Database, plan: StagedWrite): Promise<void> {
  const { bulk, writeLock, dialect } = database;
  const { body } = plan;
  if (bulk && writeLock) {
    try {
      for (let from = 0; from < body.count; from += SQLITE_SLICE) {
        const to = Math.min(body.count, from + SQLITE_SLICE);
        const rows = body.cells ? { from, to, cells: body.cells } : body.slice(from, to);
        await writeLock.run(() => bulk.transaction(() => sqliteInsert(bulk, body.table, body.columns, rows))());
        await turn();
      }
      for (const copy of plan.copies) {
        await writeLock.run(() => bulk.prepare(copy.sql).run(...copy.values));
        await turn();
      }
      await writeLock.run(() =>
        bulk.transaction(() => {
          for (const rows of [plan.head.row(), plan.tail, ...(plan.alongside ? [plan.alongside.row()] : [])])
            sqliteInsert(bulk, rows.table, rows.columns, rows.rows);
        })(),
      );
    } catch (error) {
      for (const undo of plan.undo) await writeLock.run(() => bulk.prepare(undo.sql).run(...undo.values));
      throw error;
    }
    return;
  }
  await database.prisma.$transaction(
    async (tx) => {
      await plan.head.create(tx);
      for (let from = 0; from < body.count; from += SLICE) {
        const rows = body.slice(from, Math.min(body.count, from + SLICE));
        if (body.types) await insertArrays(tx, body.table, body.columns, body.types, rows);
        else await insertRows(tx, dialect, body.table, body.columns, rows);
      }
      for (const copy of plan.copies) await tx.$executeRawUnsafe(q(dialect, copy.sql), ...copy.values);
      await insertRows(tx, dialect, plan.tail.table, plan.tail.columns, plan.tail.rows);
      await plan.enqueue(tx);
      if (plan.alongside) await plan.alongside.create(tx);
    },
    { timeout: 600_000, maxWait: 60_000 },
  );
}
