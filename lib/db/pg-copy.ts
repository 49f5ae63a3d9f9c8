import { once } from 'node:events';
import { setImmediate as turn } from 'node:timers/promises';
import type pg from 'pg';

/**
 * PostgreSQL's `COPY … FROM STDIN` on a held connection (lib/db/pg-connection.ts), for many rows at
 * once (a queued job's items, lib/db/staged-write.ts): the server loads them in batches, where an
 * INSERT of column arrays parses each array and inserts row by row (about half the database's CPU
 * for a million items, docs/benchmarks.md). `pg` runs any object with `submit` as a query (its
 * "Submittable", what pg-copy-streams builds on); this one sends the rows `pieces` makes, one at a
 * time, waiting for the socket to drain and giving the event loop a turn between them.
 */
export function copyIn(client: pg.PoolClient, sql: string, pieces: Iterable<string>): Promise<number> {
  const copy = new CopyIn(sql, pieces[Symbol.iterator]());
  void client.query(copy as unknown as pg.QueryConfig);
  return copy.finished;
}

/** A pg Connection, as much of it as a copy uses (lib/connection.js of `pg`). */
interface Connection {
  stream: NodeJS.WritableStream & { writableNeedDrain?: boolean };
  query(text: string): void;
  sendCopyFromChunk(chunk: Buffer): void;
  endCopyFrom(): void;
  sendCopyFail(message: string): void;
}

class CopyIn {
  readonly finished: Promise<number>;
  private settle!: { resolve(rows: number): void; reject(error: Error): void };
  private failed: Error | null = null;
  private rows = 0;
  /** wakes the sender waiting for the socket to drain when the copy ends first */
  private ended = new AbortController();

  constructor(
    private readonly sql: string,
    private readonly pieces: Iterator<string>,
  ) {
    this.finished = new Promise<number>((resolve, reject) => {
      this.settle = { resolve, reject };
    });
  }

  submit(connection: Connection): void {
    connection.query(this.sql);
  }

  handleCopyInResponse(connection: Connection): void {
    this.send(connection).catch((error: Error) => {
      // a piece that could not be made: the server ends the COPY and answers with an error, this one is kept
      this.failed ??= error;
      connection.sendCopyFail(error.message);
    });
  }

  private async send(connection: Connection): Promise<void> {
    const { signal } = this.ended;
    for (let piece = this.pieces.next(); !piece.done; piece = this.pieces.next()) {
      // the server answered with an error: it drops whatever is still sent
      if (signal.aborted) return;
      connection.sendCopyFromChunk(Buffer.from(piece.value, 'utf8'));
      if (connection.stream.writableNeedDrain) await once(connection.stream, 'drain', { signal }).catch(() => undefined);
      await turn();
    }
    if (!signal.aborted) connection.endCopyFrom();
  }

  handleCommandComplete(message: { text?: string }): void {
    this.rows = Number(/^COPY (\d+)/.exec(message.text ?? '')?.[1] ?? 0);
  }

  handleReadyForQuery(): void {
    this.ended.abort();
    if (this.failed) this.settle.reject(this.failed);
    else this.settle.resolve(this.rows);
  }

  handleError(error: Error): void {
    this.ended.abort();
    this.settle.reject(this.failed ?? error);
  }

  // a COPY FROM answers none of these; `pg` calls them on whatever query is active
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyData(): void {}
}

const NEEDS_ESCAPE = /[\\\t\n\r\u0000]/;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/**
 * One value in COPY's text format: NULL as `\N`; strings with backslash, tab, newline and carriage
 * return escaped, NUL as U+FFFD (as `sqlValue` stores it); booleans t/f; numbers as their text; a
 * Date as its ISO text; anything else as its JSON.
 */
export function copyValue(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  if (typeof value === 'string') return NEEDS_ESCAPE.test(value) ? escaped(value) : value;
  if (typeof value === 'boolean') return value ? 't' : 'f';
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (value instanceof Date) return value.toISOString();
  return escaped(JSON.stringify(value));
}

function escaped(value: string): string {
  return value.replaceAll('\u0000', '\uFFFD').replace(/[\\\t\n\r]/g, (c) => ESCAPES[c]!);
}

/** Rows `from` to `to` of a source that pushes a row's cells onto an array (`RowSource`, lib/db/sqlite-insert.ts), as COPY's text lines. */
export function copyLines(cells: (values: unknown[], index: number) => void, from: number, to: number): string {
  const values: unknown[] = [];
  let text = '';
  for (let r = from; r < to; r++) {
    values.length = 0;
    cells(values, r);
    for (let c = 0; c < values.length; c++) text += (c > 0 ? '\t' : '') + copyValue(values[c]);
    text += '\n';
  }
  return text;
}
