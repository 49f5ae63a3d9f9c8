import { indexRanges } from './jobs';
import { NOT_RULED } from '../../results/chargeable';
import { VERIFICATION_COLUMNS } from '../../results/rows';
import { byDialect, q, selectRows, sqlBoolean } from '../sql';
import type { Database, Db, Dialect } from '../types';

/**
 * The named queries of the `verifications` table (lib/results) whose SQL differs by database: the
 * history, the cache lookup, fresh results reused by a list (lib/jobs/intake/reuse.ts), and a job's
 * results counted for its summary (lib/results/summary.ts). The domain asks for them by name; the
 * SQL of each database is written here, side by side.
 */

/**
 * The SQL side of mailboxCase (lib/results/history.ts): the expression the (user_id, lower(email))
 * index is built on, ASCII letters lower-cased and nothing else on both databases.
 */
function emailCase(dialect: Dialect): string {
  return byDialect(dialect, { postgres: 'lower(email COLLATE "C")', sqlite: 'lower(email)' });
}

/** SQLite without statistics would walk the (user_id, sandbox, id) index for the ORDER BY instead of the (user_id, lower(email)) one. */
function byEmailIndex(dialect: Dialect): string {
  return byDialect(dialect, { sqlite: ' INDEXED BY verifications_user_id_email_idx', postgres: '' });
}

/**
 * The cache lookup: production rows only, by the partial (user_id, lower(email)) index; a rule's
 * verdict is not a probe's and is never reused. Parameters: the account, the mailbox's key
 * (mailboxCase), `cached` (false), the oldest time a result may have.
 */
export function cacheLookupSql(database: Pick<Database, 'dialect'>): string {
  return `SELECT * FROM verifications${byEmailIndex(database.dialect)} WHERE user_id = ? AND ${emailCase(database.dialect)} = ? AND sandbox = ${sqlBoolean(database.dialect, false)} AND cached = ?
    AND status <> 'unknown' AND ${NOT_RULED} AND created_at >= ? ORDER BY id DESC LIMIT 1`;
}

/** The account's latest fresh production result for a mailbox (`key`: mailboxCase) since `since`: at most one row. */
export function cacheLookup<T>(database: Database, userId: string, key: string, since: number): Promise<T[]> {
  return selectRows<T>(database, cacheLookupSql(database), [userId, key, false, since]);
}

export interface HistoryRowsQuery {
  userId: string;
  sandbox: boolean;
  /** rows with a smaller id only (the keyset cursor) */
  before?: number;
  /** one mailbox only, by its key (mailboxCase) */
  key?: string;
  limit: number;
}

/** An account's verifications of one mode, newest first, up to `limit`: `columns` (an SQL select list) of each. */
export function historyRows<T>(database: Database, columns: string, query: HistoryRowsQuery): Promise<T[]> {
  const { dialect } = database;
  const params: unknown[] = [query.userId];
  // the mode as a literal: the (user_id, email) index covers production rows only (see its migration)
  let where = `user_id = ? AND sandbox = ${sqlBoolean(dialect, query.sandbox)}`;
  if (query.before !== undefined) {
    where += ' AND id < ?';
    params.push(query.before);
  }
  if (query.key !== undefined) {
    where += ` AND ${emailCase(dialect)} = ?`;
    params.push(query.key);
  }
  // a production search by address goes by that index (SQLite would pick the one matching ORDER BY)
  const byEmail = query.key !== undefined && !query.sandbox ? byEmailIndex(dialect) : '';
  return selectRows<T>(database, `SELECT ${columns} FROM verifications${byEmail} WHERE ${where} ORDER BY id DESC LIMIT ?`, [...params, query.limit]);
}

/**
 * The account's production results since `since` that a list may reuse, for a batch of mailbox
 * keys (mailboxCase): probes only (no `unknown`, no rule's verdict, no row that was itself reused),
 * each row's id and key. The batch is one parameter (an array): thousands of bound values cost more
 * than the lookups.
 */
export function reusableResults(database: Database, userId: string, keys: readonly string[], since: number): Promise<{ id: number | bigint; k: string }[]> {
  const { dialect } = database;
  const keysIn = byDialect(dialect, { postgres: '= ANY(?::text[])', sqlite: 'IN (SELECT value FROM json_each(?))' });
  return selectRows<{ id: number | bigint; k: string }>(
    database,
    `SELECT id, ${emailCase(dialect)} AS k FROM verifications${byEmailIndex(dialect)}
        WHERE user_id = ? AND ${emailCase(dialect)} ${keysIn} AND sandbox = ${sqlBoolean(dialect, false)}
          AND cached = ? AND reused_at IS NULL AND status <> 'unknown' AND ${NOT_RULED} AND created_at >= ?`,
    [userId, byDialect<unknown>(dialect, { postgres: keys, sqlite: JSON.stringify(keys) }), false, since],
  );
}

/**
 * The statement that stores reused rows for a job: each result copied inside the database as the
 * list's row (its index, the address as the list spells it), `cached`, `reused_at` its time.
 * Parameters: copyReusedParams.
 */
export function copyReusedSql(dialect: Dialect): string {
  const select = VERIFICATION_COLUMNS.map((column) => {
    switch (column) {
      case 'job_id':
        return '?';
      case 'idx':
        return 'm.idx';
      case 'email':
        return 'm.email';
      case 'source':
        return `'bulk'`;
      case 'cached':
        return sqlBoolean(dialect, true);
      case 'created_at':
        return '?';
      default:
        return `v.${column}`;
    }
  });
  const rows = byDialect(dialect, {
    postgres: 'unnest(?::int[], ?::int[], ?::text[]) AS m(id, idx, email)',
    sqlite: `(SELECT json_extract(value, '$[0]') AS id, json_extract(value, '$[1]') AS idx, json_extract(value, '$[2]') AS email FROM json_each(?)) m`,
  });
  return `INSERT INTO verifications (${VERIFICATION_COLUMNS.join(', ')}, reused_at)
    SELECT ${select.join(', ')}, v.created_at FROM ${rows} JOIN verifications v ON v.id = m.id`;
}

/** copyReusedSql's parameters: the job's id, now, then the rows (the result's id, the list's index, the list's address) as the database takes them. */
export function copyReusedParams(
  dialect: Dialect,
  jobId: string,
  now: number,
  rows: readonly { id: number; idx: number }[],
  emails: { at(index: number): string | undefined },
): unknown[] {
  return [
    jobId,
    now,
    ...byDialect<unknown[]>(dialect, {
      postgres: [rows.map((r) => r.id), rows.map((r) => r.idx), rows.map((r) => emails.at(r.idx))],
      sqlite: [JSON.stringify(rows.map((r) => [r.id, r.idx, emails.at(r.idx)]))],
    }),
  ];
}

/**
 * Result indexes counted per SQLite statement of a job's summary: 0.4-0.45 µs a row, so 4-9 ms of
 * the event loop each (bench/summary-hold.ts, docs/benchmarks.md).
 */
const SUMMARY_RANGE = 10_000;

export interface StatusGroup {
  status: string;
  valid: boolean | number;
  n: number | bigint;
}

/**
 * A job's stored results counted per (status, valid), in groups: the counts of one group add to the
 * next's. Read in the caller's transaction (a job's completion, an instant list's own results).
 * SQLite answers on this event loop: a million rows counted at once held every other request for
 * about half a second, so it counts a range of indexes at a time and yields between them, as
 * `jobProviderGroups` (lib/db/queries/jobs.ts) does. PostgreSQL's answer is awaited over the
 * network, in one query.
 */
export async function* jobStatusGroups(tx: Pick<Db, '$queryRawUnsafe'>, dialect: Dialect, jobId: string): AsyncGenerator<StatusGroup[]> {
  const ranged = byDialect(dialect, { postgres: false, sqlite: true });
  if (!ranged) {
    yield await tx.$queryRawUnsafe<StatusGroup[]>(q(dialect, GROUPS), jobId);
    return;
  }
  const [bounds] = await tx.$queryRawUnsafe<{ low: number | bigint | null; top: number | bigint | null }[]>(BOUNDS, jobId, jobId);
  if (bounds?.top == null) return;
  for await (const [from, to] of indexRanges(Number(bounds.low ?? 0), Number(bounds.top), SUMMARY_RANGE)) {
    yield await tx.$queryRawUnsafe<StatusGroup[]>(GROUPS_IN_RANGE, jobId, from, to);
  }
}

const GROUPS = `SELECT status, valid, COUNT(*) AS n FROM verifications WHERE job_id = ? GROUP BY status, valid`;
/**
 * SQLite's: both ends read from the (job_id, idx) index, one subquery each. `MIN(idx), MAX(idx)` in
 * one SELECT is not the one-row index lookup that either alone is: it walks the job's whole index
 * (55-150 ms for a million results, bench/summary-hold.ts).
 */
const BOUNDS = `SELECT (SELECT MIN(idx) FROM verifications WHERE job_id = ?) AS low, (SELECT MAX(idx) FROM verifications WHERE job_id = ?) AS top`;
const GROUPS_IN_RANGE = `SELECT status, valid, COUNT(*) AS n FROM verifications WHERE job_id = ? AND idx >= ? AND idx < ? GROUP BY status, valid`;
