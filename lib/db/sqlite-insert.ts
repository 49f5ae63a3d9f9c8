import { sqlValue } from './values';

const ROWS_PER_STATEMENT = 100;
type BetterSqlite3 = import('better-sqlite3').Database;
/** This module's prepared INSERTs, per connection. */
const statements = new WeakMap<object, Map<string, import('better-sqlite3').Statement>>();

/** Rows `from` to `to` (excluded) of a source that pushes row `index`'s cells, in column order, onto `values`: bound without an array per row. */
export interface RowSource {
  from: number;
  to: number;
  cells(values: unknown[], index: number): void;
}

/**
 * Synchronous multi-row insert on a direct SQLite connection, in a transaction (nests as a savepoint).
 * Answers how many rows it stored (fewer than `rows` when `suffix` skips some: ON CONFLICT DO NOTHING).
 * The parameters of each statement go in one array reused for the next (better-sqlite3 binds them
 * at the call), so a million rows make no array per statement, nor one per row from a RowSource.
 * A column whose value is the same in every row of a statement (a job's id and account, its mode,
 * the nulls of a sandbox verdict) is bound once for the statement (`sharedColumns`): binding a
 * value costs more than SQLite's own work on it (docs/benchmarks.md, "Checkpoints off the server's thread, values bound once").
 */
export function sqliteInsert(bulk: BetterSqlite3, table: string, columns: readonly string[], rows: readonly unknown[][] | RowSource, suffix = ''): number {
  const source = Array.isArray(rows) ? null : (rows as RowSource);
  const list = rows as readonly unknown[][];
  const from = source ? source.from : 0;
  const to = source ? source.to : list.length;
  let stored = 0;
  const values: unknown[] = [];
  const bound: unknown[] = [];
  bulk.transaction(() => {
    for (let start = from; start < to; start += ROWS_PER_STATEMENT) {
      const end = Math.min(to, start + ROWS_PER_STATEMENT);
      values.length = 0;
      for (let index = start; index < end; index++) {
        if (source) source.cells(values, index);
        else for (const value of list[index]!) values.push(value);
      }
      for (let i = 0; i < values.length; i++) values[i] = sqlValue('sqlite', values[i]);
      const { statement, shared } = insertStatement(bulk, table, columns, suffix, end - start, sharedColumns(values, columns.length, end - start));
      stored += statement.run(shared === 0 ? values : sharedFirst(values, bound, columns.length, shared)).changes;
    }
  })();
  return stored;
}

/** Statements of fewer rows bind every value: little to save, and fewer statements to keep. */
const SHARED_MIN_ROWS = 16;
/** At most this many statements per table and row count for the patterns of shared columns: past it, rows bind every value. */
const SHARED_PATTERNS = 32;

/** The columns (a bit each) whose value is the same in every one of `count` rows of `values`; 0 when none or every one is, or the rows are too few. */
function sharedColumns(values: readonly unknown[], width: number, count: number): number {
  if (count < SHARED_MIN_ROWS || width > 30) return 0;
  let mask = 0;
  for (let c = 0; c < width; c++) {
    const value = values[c];
    let same = true;
    for (let at = c + width; at < values.length; at += width)
      if (values[at] !== value) {
        same = false;
        break;
      }
    if (same) mask |= 1 << c;
  }
  return mask === (1 << width) - 1 ? 0 : mask;
}

/** The parameters in the order of `insertStatement`'s shared form: the shared columns' values once, then each row's others. */
function sharedFirst(values: readonly unknown[], bound: unknown[], width: number, shared: number): unknown[] {
  bound.length = 0;
  for (let c = 0; c < width; c++) if (shared & (1 << c)) bound.push(values[c]);
  for (let at = 0; at < values.length; at += width) for (let c = 0; c < width; c++) if (!(shared & (1 << c))) bound.push(values[at + c]);
  return bound;
}

/**
 * The INSERT of `count` rows, prepared once per connection: `VALUES (?, …), …` when no column is
 * shared, else `SELECT ?, column1, … FROM (VALUES …)` with a shared column's `?` in the select list.
 * With the shared columns it was prepared for: none once a table has had SHARED_PATTERNS of them.
 */
function insertStatement(
  bulk: BetterSqlite3,
  table: string,
  columns: readonly string[],
  suffix: string,
  count: number,
  wanted: number,
): { statement: import('better-sqlite3').Statement; shared: number } {
  let cache = statements.get(bulk);
  if (!cache) statements.set(bulk, (cache = new Map()));
  const family = `${table}|${columns.join(',')}|${suffix}|${count}`;
  let shared = wanted;
  let statement = cache.get(`${family}|${shared}`);
  if (statement) return { statement, shared };
  if (shared !== 0) {
    let patterns = sharedPatterns.get(bulk);
    if (!patterns) sharedPatterns.set(bulk, (patterns = new Map()));
    const kept = patterns.get(family) ?? 0;
    if (kept >= SHARED_PATTERNS) shared = 0;
    else patterns.set(family, kept + 1);
    statement = cache.get(`${family}|${shared}`);
    if (statement) return { statement, shared };
  }
  const into = `INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(', ')})`;
  const own = columns.filter((_, c) => !(shared & (1 << c)));
  const rows = Array(count)
    .fill(`(${own.map(() => '?').join(', ')})`)
    .join(', ');
  let selected = 0;
  const select = columns.map((_, c) => (shared & (1 << c) ? '?' : `column${++selected}`)).join(', ');
  statement = bulk.prepare(shared === 0 ? `${into} VALUES ${rows} ${suffix}` : `${into} SELECT ${select} FROM (VALUES ${rows}) WHERE true ${suffix}`);
  cache.set(`${family}|${shared}`, statement);
  return { statement, shared };
}
const sharedPatterns = new WeakMap<object, Map<string, number>>();
