import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setImmediate as turn } from 'node:timers/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

/**
 * PostgreSQL's `COPY … FROM STDIN` on a held connection (lib/db/pg-connection.ts), for many rows at
 * once (a queued job's items, lib/db/staged-write.ts): the server loads them in batches, where an
 * INSERT of column arrays parses each array and inserts row by row (about half the database's CPU
 * for a million items, docs/benchmarks.md). The protocol is pg-copy-streams' (the `pg` family's COPY
 * streams): the rows `pieces` makes go one at a time, each after the socket has taken the last and
 * the event loop has had a turn. A piece that cannot be made, or a row the server refuses, ends the
 * copy with that error (pg-copy-streams sends CopyFail; the caller's transaction rolls back).
 */
export async function copyIn(client: pg.PoolClient, sql: string, pieces: Iterable<string>): Promise<number> {
  const copy = client.query(copyFrom(sql));
  await pipeline(Readable.from(paced(pieces), { objectMode: false }), copy);
  return copy.rowCount;
}

async function* paced(pieces: Iterable<string>): AsyncGenerator<Buffer> {
  for (const piece of pieces) {
    yield Buffer.from(piece, 'utf8');
    await turn();
  }
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
