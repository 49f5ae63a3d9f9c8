import { setImmediate as turn } from 'node:timers/promises';
import type pg from 'pg';
import { pausepoint } from '../failpoints/failpoints';
import type { Database, Db, Dialect } from './client';
import type { Statement } from './insert-while-held';
import { heldConnection, inTransaction, rawClient } from './pg-connection';
import { copyIn, copyLines } from './pg-copy';
import { insertRows, q, type RowSource, sqliteInsert } from './sql';

/** the transaction's raw statements (lib/db/pg-connection.ts rawClient) */
type Tx = Pick<Db, '$executeRawUnsafe' | '$queryRawUnsafe'>;

/** Rows of one table, in `columns` order. */
export interface Rows {
  table: string;
  columns: readonly string[];
  rows: unknown[][];
}

/** A row written by column, its values as `dialect` stores them (made when it is written). */
export interface ModelRow {
  row(dialect: Dialect): Rows;
}

/**
 * A write too big for one SQLite transaction that must still appear at once: a queued job (its row,
 * items, reused results and chunks, lib/jobs/intake/insert.ts). Nothing reads the body before the
 * head is written.
 */
export interface StagedWrite {
  /** the row the others belong to: what makes them visible */
  head: ModelRow;
  /** its many rows, `count` of them, made a slice at a time so they are never all in memory: row `index`'s cells pushed onto `values` (no array per row) */
  body: {
    table: string;
    columns: readonly string[];
    count: number;
    cells: RowSource['cells'];
  };
  /** statements that write more of its rows inside the database, one batch each (made as they run) */
  copies: Iterable<Statement>;
  /** rows written with the head */
  tail: Rows;
  /** the queue engine's part, in the transaction that writes the head (PostgreSQL's deliveries; SQLite's queue is the rows themselves; not called there) */
  enqueue(tx: Tx): Promise<void>;
  /** a row that commits with the head (an audit row), or null */
  alongside: ModelRow | null;
  /** what removes the body and copies when the head could not be written */
  undo: Statement[];
}

/** rows of the body per SQLite transaction: about 10 ms of synchronous writing each (lib/jobs/intake/slices.ts) */
const SQLITE_SLICE = 2_000;

/**
 * Writes a StagedWrite so that nothing half-written is ever visible. PostgreSQL writes it in one
 * transaction on a connection of the adapter's pool (`pgWriteStaged` below; its statements wait
 * on the network, not on this event loop). On SQLite the direct
 * connection writes synchronously, so a million rows in one transaction would hold the server for
 * seconds: the body and copies go in slices of their own transactions, each taking its turn in the
 * write queue, and the head with its tail last, in one. Until then nothing reads them (a job's chunks
 * are claimed through its row). If that fails the body is deleted; a crash leaves it unreferenced.
 */
export async function writeStaged(database: Database, plan: StagedWrite): Promise<void> {
  const { bulk, writeLock, pool } = database;
  const { body } = plan;
  if (bulk && writeLock) {
    try {
      for (let from = 0; from < body.count; from += SQLITE_SLICE) {
        const to = Math.min(body.count, from + SQLITE_SLICE);
        await writeLock.run(() => bulk.transaction(() => sqliteInsert(bulk, body.table, body.columns, { from, to, cells: body.cells }))());
        await turn();
      }
      for (const copy of plan.copies) {
        await writeLock.run(() => bulk.prepare(copy.sql).run(...copy.values));
        await turn();
      }
      await writeLock.run(() =>
        bulk.transaction(() => {
          for (const rows of [plan.head.row('sqlite'), plan.tail, ...(plan.alongside ? [plan.alongside.row('sqlite')] : [])])
            sqliteInsert(bulk, rows.table, rows.columns, rows.rows);
        })(),
      );
    } catch (error) {
      for (const undo of plan.undo) await writeLock.run(() => bulk.prepare(undo.sql).run(...undo.values));
      throw error;
    }
    return;
  }
  if (!pool) throw new Error('a staged write needs the SQLite direct connection or the PostgreSQL pool');
  await pgWriteStaged(pool, plan);
}

/** rows of the body per PostgreSQL COPY: each statement well inside EV_PG_STATEMENT_TIMEOUT_MS's default 30 s */
const COPY_ROWS = 100_000;
/** rows of the body made and sent at a time in a COPY: a few ms of this event loop each */
const PIECE = 10_000;

/**
 * PostgreSQL's StagedWrite: one transaction on one connection of the pool Prisma's adapter uses
 * (Database.pool, lib/db/pg-connection.ts): the head, the body, the copies, the tail, the queue's
 * deliveries (pg-boss's own statements, on this connection: `enqueue` gets it as a transaction
 * client) and the row alongside, then COMMIT; any failure rolls it all back, so nothing of it is
 * ever visible half-written. The body goes by COPY (lib/db/pg-copy.ts), COPY_ROWS a statement.
 */
async function pgWriteStaged(pool: pg.Pool, plan: StagedWrite): Promise<void> {
  await heldConnection(pool, (client) =>
    inTransaction(client, async () => {
      const tx = rawClient(client);
      const head = plan.head.row('postgres');
      await insertRows(tx, 'postgres', head.table, head.columns, head.rows);
      await writeBody(client, plan.body);
      for (const copy of plan.copies) await client.query(q('postgres', copy.sql), copy.values);
      await insertRows(tx, 'postgres', plan.tail.table, plan.tail.columns, plan.tail.rows);
      await plan.enqueue(tx);
      if (plan.alongside) {
        const row = plan.alongside.row('postgres');
        await insertRows(tx, 'postgres', row.table, row.columns, row.rows);
      }
      // all written, not yet committed: a test holds or fails the write here
      await pausepoint('job.staged-before-commit');
    }),
  );
}

async function writeBody(client: pg.PoolClient, body: StagedWrite['body']): Promise<void> {
  const sql = `COPY "${body.table}" (${body.columns.map((c) => `"${c}"`).join(', ')}) FROM STDIN`;
  for (let from = 0; from < body.count; from += COPY_ROWS) await copyIn(client, sql, pieces(body.cells, from, Math.min(body.count, from + COPY_ROWS)));
}

/** rows `from` to `to` as COPY's text, PIECE rows at a time, made as the copy sends them */
function* pieces(cells: RowSource['cells'], from: number, to: number): Generator<string> {
  for (let at = from; at < to; at += PIECE) yield copyLines(cells, at, Math.min(to, at + PIECE));
}
