import { sqliteInsert } from './sqlite-insert';
import type { Database, Dialect } from './types';
import { sqlValue } from './values';

export { type RowSource, sqliteInsert } from './sqlite-insert';
export { sqlValue } from './values';

type Runner = { $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number> };

/** `?` placeholders for SQLite, `$n` for PostgreSQL. */
export function placeholder(dialect: Dialect, n: number): string {
  return dialect === 'postgres' ? `$${n}` : '?';
}

/** Rewrites a query written with `?` for the dialect (no `?` may appear inside literals). */
export function q(dialect: Dialect, query: string): string {
  if (dialect === 'sqlite') return query;
  let n = 0;
  return query.replace(/\?/g, () => `$${++n}`);
}

/**
 * Inserts many rows with multi-row INSERT statements (Prisma's createMany manages about 4k rows/s;
 * this is an order of magnitude faster). `suffix` may add e.g. ON CONFLICT DO NOTHING.
 */
export async function insertRows(
  runner: Runner,
  dialect: Dialect,
  table: string,
  columns: readonly string[],
  rows: readonly unknown[][],
  suffix = '',
): Promise<void> {
  const maxParams = dialect === 'sqlite' ? 32_000 : 60_000;
  const perStatement = Math.max(1, Math.floor(maxParams / columns.length));
  const head = `INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) VALUES `;
  for (let start = 0; start < rows.length; start += perStatement) {
    const batch = rows.slice(start, start + perStatement);
    const values: unknown[] = [];
    const tuples: string[] = [];
    for (const row of batch) {
      const marks: string[] = [];
      for (const value of row) {
        values.push(sqlValue(dialect, value));
        marks.push(placeholder(dialect, values.length));
      }
      tuples.push(`(${marks.join(', ')})`);
    }
    await runner.$executeRawUnsafe(`${head}${tuples.join(', ')} ${suffix}`, ...values);
  }
}

/** Rows for one table of `insertTogether`. */
export interface TableRows {
  table: string;
  columns: readonly string[];
  rows: readonly unknown[][];
}

/**
 * PostgreSQL: rows into two tables in ONE statement, a data-modifying WITH (one round trip where a
 * transaction takes four): both go in, or the statement fails whole and neither does.
 */
export async function insertTogether(runner: Runner, first: TableRows, second: TableRows): Promise<void> {
  const params: unknown[] = [];
  const tuple = (row: readonly unknown[]) => `(${row.map((value) => `$${params.push(sqlValue('postgres', value))}`).join(', ')})`;
  const insert = ({ table, columns, rows }: TableRows) =>
    `INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) VALUES ${rows.map(tuple).join(', ')}`;
  const head = insert(first);
  await runner.$executeRawUnsafe(`WITH inserted AS (${head}) ${insert(second)}`, ...params);
}

/**
 * PostgreSQL: inserts rows as one array per column, which the database unnests (`types` names each
 * column's type): a statement of `columns.length` parameters however many rows, where a multi-row
 * VALUES list binds (and the driver converts) one parameter per cell.
 */
export async function insertArrays(
  runner: Runner,
  table: string,
  columns: readonly string[],
  types: Readonly<Record<string, string>>,
  rows: readonly unknown[][],
  suffix = '',
): Promise<void> {
  if (rows.length === 0) return;
  const { sql, values } = arraysInsert(table, columns, types, rows, suffix);
  await runner.$executeRawUnsafe(sql, ...values);
}

/**
 * `insertArrays`' statement (`$n` placeholders) and its parameters, for a caller that runs it on a
 * `pg` connection of its own. A column with one value in every row (a job's id, a sandbox verdict's
 * NULLs) goes once, as a one-element array the statement subscripts, not repeated in an array of
 * every row: the literal is built, sent and parsed once (`sqliteInsert` binds such a column once too).
 */
export function arraysInsert(
  table: string,
  columns: readonly string[],
  types: Readonly<Record<string, string>>,
  rows: readonly unknown[][],
  suffix = '',
): { sql: string; values: string[] } {
  const values: string[] = [];
  const unnest: string[] = [];
  const select = columns.map((column, c) => {
    const type = types[column];
    // the last column always goes whole: the rows come from the unnest, even if every column is shared
    if (rows.length > 1 && c < columns.length - 1 && sharedColumn(rows, c)) {
      values.push(arrayLiteral([rows[0]!], c));
      return `($${values.length}::${type}[])[1]`;
    }
    values.push(arrayLiteral(rows, c));
    unnest.push(`$${values.length}::${type}[]`);
    return `u.c${c}`;
  });
  const names = select.filter((expression) => expression.startsWith('u.')).map((expression) => expression.slice(2));
  return {
    sql: `INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) SELECT ${select.join(', ')} FROM unnest(${unnest.join(', ')}) AS u(${names.join(', ')}) ${suffix}`,
    values,
  };
}

/** Whether column `c` holds the same value in every row (NULL and undefined alike, as `arrayLiteral` writes them). */
function sharedColumn(rows: readonly unknown[][], c: number): boolean {
  const first = rows[0]![c] ?? null;
  if (first !== null && typeof first === 'object') return false;
  for (let r = 1; r < rows.length; r++) if ((rows[r]![c] ?? null) !== first) return false;
  return true;
}

/**
 * One column of `rows` as PostgreSQL's array literal (`{"a",NULL,t,7}`), sent as one text
 * parameter the statement casts: neither Prisma nor the driver then walks (and copies) the column
 * element by element, which cost more than the insert itself (docs/benchmarks.md). Strings are
 * quoted with `"` and `\` escaped, NUL becomes U+FFFD as in `sqlValue`; booleans are t/f; other
 * values (numbers, bigints) go as their text; a Date as its ISO text.
 */
export function arrayLiteral(rows: readonly unknown[][], c: number): string {
  let text = '{';
  for (let r = 0; r < rows.length; r++) {
    if (r > 0) text += ',';
    const value = rows[r]![c];
    if (value === null || value === undefined) text += 'NULL';
    else if (typeof value === 'string') text += quoted(value);
    else if (typeof value === 'boolean') text += value ? 't' : 'f';
    else if (value instanceof Date) text += quoted(value.toISOString());
    else if (typeof value === 'number' || typeof value === 'bigint') text += String(value);
    else text += quoted(JSON.stringify(value));
  }
  return `${text}}`;
}

const NEEDS_ESCAPE = /["\\\u0000]/;
function quoted(value: string): string {
  if (!NEEDS_ESCAPE.test(value)) return `"${value}"`;
  return `"${value.replaceAll('\u0000', '\uFFFD').replace(/["\\]/g, '\\$&')}"`;
}

type BetterSqlite3 = import('better-sqlite3').Database;
const statements = new WeakMap<object, Map<string, import('better-sqlite3').Statement>>();

/**
 * Bulk insert through the fastest path of the dialect: the direct SQLite connection's prepared
 * multi-row statements, or batched multi-row INSERTs through Prisma.
 */
export async function bulkInsert(database: Database, table: string, columns: readonly string[], rows: readonly unknown[][], suffix = ''): Promise<void> {
  const { bulk, writeLock } = database;
  if (bulk && writeLock) await writeLock.run(() => sqliteInsert(bulk, table, columns, rows, suffix));
  else await insertRows(database.prisma, database.dialect, table, columns, rows, suffix);
}

/**
 * A read on the hot path (job items, result pages): SQLite answers on the direct connection, where
 * a 5000-row page costs a fraction of what the Prisma adapter's row conversion does.
 */
export async function selectRows<T>(database: Database, query: string, params: unknown[]): Promise<T[]> {
  if (!database.bulk) return database.prisma.$queryRawUnsafe<T[]>(q(database.dialect, query), ...params);
  return prepared(database.bulk, query).all(...params.map((p) => sqlValue('sqlite', p))) as T[];
}

/** Like selectRows, as arrays in the SELECT's column order (no object per row). */
export async function selectArrays(database: Database, query: string, params: unknown[]): Promise<unknown[][]> {
  if (!database.bulk) return (await selectRows<Record<string, unknown>>(database, query, params)).map((row) => Object.values(row));
  return prepared(database.bulk, `${query} -- raw`)
    .raw(true)
    .all(...params.map((p) => sqlValue('sqlite', p))) as unknown[][];
}

/** A statement of the direct connection, prepared once per connection and query. */
export function prepared(bulk: BetterSqlite3, query: string) {
  let cache = statements.get(bulk);
  if (!cache) statements.set(bulk, (cache = new Map()));
  let statement = cache.get(query);
  if (!statement) cache.set(query, (statement = bulk.prepare(query)));
  return statement;
}

/**
 * The one place call sites choose by database (umami's runQuery is the model): each dialect's SQL
 * or action side by side, and the compiler checks that neither is missing.
 */
export function byDialect<T>(dialect: Dialect, choices: Record<Dialect, T>): T {
  return choices[dialect];
}

/** The database's clock in epoch milliseconds, as an SQL expression (leases, politeness: workers whose clocks disagree still agree on it). */
export function dbNow(dialect: Dialect): string {
  return byDialect(dialect, { postgres: `(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::bigint`, sqlite: `CAST(unixepoch('subsec') * 1000 AS INTEGER)` });
}

/** A boolean written into the SQL text itself (SQLite has no boolean type), e.g. so the planner can match a partial index's predicate. */
export function sqlBoolean(dialect: Dialect, value: boolean): string {
  return byDialect(dialect, { postgres: String(value), sqlite: value ? '1' : '0' });
}
