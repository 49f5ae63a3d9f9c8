import { setImmediate as turn } from 'node:timers/promises';
import type { Database, Db, Dialect } from '../types';
import { byDialect, selectRows } from '../sql';

/**
 * The named queries of bulk jobs whose SQL, or whose way of being run, differs by database. The
 * domain (lib/jobs) asks for them by name; which engine answers, and how, is decided here.
 */

/**
 * Locks a job's row for the rest of the caller's transaction. PostgreSQL: the row lock serialises
 * the transactions that complete its chunks (and a cancel), so of two workers completing the last
 * two chunks at once the second sees the first's chunk done and finishes the job
 * (lib/jobs/worker/lifecycle.ts). SQLite has one writer at a time already: nothing to do.
 */
export async function lockJobRow(tx: Pick<Db, '$queryRawUnsafe'>, dialect: Dialect, jobId: string): Promise<void> {
  await byDialect<() => Promise<unknown>>(dialect, {
    postgres: () => tx.$queryRawUnsafe(`SELECT id FROM jobs WHERE id = $1 FOR NO KEY UPDATE`, jobId),
    sqlite: async () => {},
  })();
}

/** Result indexes grouped per SQLite query: a few milliseconds of the event loop each. */
const PROVIDER_RANGE = 5_000;

export interface ProviderGroup {
  /** the address's domain */
  provider: string;
  /** the verifier's `mailbox_provider`, read from the MX hosts */
  mailbox: string | null;
  n: number | bigint;
}

/**
 * A job's verified mailboxes (not `invalid_email`) counted per (domain, mailbox provider), in
 * groups: the counts of one group of rows add to the next's. SQLite answers on this event loop: a
 * million rows grouped at once held every other request for a second or more, so it groups a range
 * of indexes at a time and yields between them (issue 20). PostgreSQL's answer is awaited over the
 * network, in one query.
 */
export async function* jobProviderGroups(database: Database, jobId: string): AsyncGenerator<ProviderGroup[]> {
  const step = byDialect(database.dialect, { postgres: Number.MAX_SAFE_INTEGER, sqlite: PROVIDER_RANGE });
  const [bounds] = await selectRows<{ top: number | bigint | null }>(database, `SELECT MAX(idx) AS top FROM verifications WHERE job_id = ?`, [jobId]);
  for await (const [from, to] of indexRanges(0, Number(bounds?.top ?? -1), step)) {
    yield await selectRows<ProviderGroup>(
      database,
      `SELECT provider, mailbox_provider AS mailbox, COUNT(*) AS n FROM verifications WHERE job_id = ? AND idx >= ? AND idx < ? AND reason <> 'invalid_email' GROUP BY provider, mailbox_provider`,
      [jobId, from, to],
    );
  }
}

/**
 * The ranges [from, to) of `step` indexes that cover `low` to `top`, with a turn of the event loop
 * before each range after the first: a job's rows read a range at a time on SQLite, whose reads hold
 * the loop (jobProviderGroups above, jobStatusGroups in lib/db/queries/results.ts).
 */
export async function* indexRanges(low: number, top: number, step: number): AsyncGenerator<[number, number]> {
  for (let from = low; from <= top; from += step) {
    if (from > low) await turn();
    yield [from, Math.min(from + step, top + 1)];
  }
}

/**
 * Cells a page of a job's download reads at once (lib/jobs/export/csv.ts divides it by the row's
 * width). On SQLite the read itself is synchronous: about 16,000 cells a page (1,000 rows of a
 * results-only file) keep it a few milliseconds of the event loop; PostgreSQL's is awaited, so its
 * pages are five times that, for fewer round trips.
 */
export function downloadPageCells(dialect: Dialect): number {
  return byDialect(dialect, { postgres: 80_000, sqlite: 16_000 });
}

/**
 * Boolean columns of `table` packed into one integer, as an SQL expression: bit i is `columns[i]`.
 * SQLite stores booleans as 0/1 already; PostgreSQL's are cast. Parentheses because | and << share
 * one precedence level.
 */
export function packedFlags(dialect: Dialect, table: string, columns: readonly string[]): string {
  const column = (name: string) => byDialect(dialect, { postgres: `${table}.${name}::int`, sqlite: `${table}.${name}` });
  return columns.map((name, i) => `(${column(name)} << ${i})`).join(' | ');
}

/**
 * Results a worker saves per statement: SQLite writes synchronously, so 1,000 (a slice of the event
 * loop); PostgreSQL sends them as column arrays and waits on the network, so a sandbox chunk's are
 * saved in fewer round trips.
 */
export function resultsPerSave(dialect: Dialect): number {
  return RESULTS_PER_SAVE[dialect];
}

/** a table, not byDialect's object per call: resultsPerSave is asked once per verified address */
const RESULTS_PER_SAVE: Record<Dialect, number> = { postgres: 5000, sqlite: 1000 };

/** a chunk's items SQLite reads at a time: its reads are synchronous, so a sandbox chunk's take turns with the server */
const ITEMS_PAGE = 2_000;

/** A chunk's items as two columns, index order: `email[i]` is item `idx[i]`'s address. */
export interface ItemColumns {
  idx: number[];
  email: string[];
}

const CHUNK_ITEMS = 'SELECT i.idx, i.email FROM job_items i WHERE i.job_id = ? AND i.idx >= ? AND i.idx < ? AND i.duplicate_of IS NULL';
const WITHOUT_RESULT = ' AND NOT EXISTS (SELECT 1 FROM verifications v WHERE v.job_id = i.job_id AND v.idx = i.idx)';
/** whether any item of a range has a stored result: one probe of the (job_id, idx) index */
const ANY_RESULT = 'SELECT 1 AS found FROM verifications WHERE job_id = ? AND idx >= ? AND idx < ? LIMIT 1';

/**
 * A job's items in [startIdx, endIdx) that are first occurrences (duplicate_of NULL) and have no
 * stored result yet, in index order. PostgreSQL reads them in one query; SQLite in pages of
 * ITEMS_PAGE, yielding between them. A range with no result at all (a chunk's first run, the common
 * case) is read without looking each item up in `verifications` (0.75-1.24 µs an item with the
 * lookup, 0.47-0.95 without, on an empty table: docs/benchmarks.md); a retried one with the
 * lookup. No other writer adds results to a claimed chunk's range meanwhile: a save needs the
 * claim (lib/db/insert-while-held.ts), and the reused results were copied at the submission. As
 * columns, not an object per item: a sandbox chunk's 10,000 items live through its whole run, so
 * a scavenge finds nearly all of those made since the last one alive, and V8 then allocates every
 * later item object straight into the old space (allocation-site pretenuring), garbage there a
 * major GC must find (docs/benchmarks.md).
 */
export async function unansweredItems(database: Database, jobId: string, startIdx: number, endIdx: number): Promise<ItemColumns> {
  const page = database.bulk ? ITEMS_PAGE : endIdx - startIdx + 1;
  const answered = (await selectRows(database, ANY_RESULT, [jobId, startIdx, endIdx])).length > 0;
  const query = `${CHUNK_ITEMS}${answered ? WITHOUT_RESULT : ''} ORDER BY i.idx LIMIT ?`;
  const items: ItemColumns = { idx: [], email: [] };
  for (let from = startIdx; ; ) {
    const rows = await selectRows<{ idx: number; email: string }>(database, query, [jobId, from, endIdx, page]);
    for (const row of rows) {
      items.idx.push(Number(row.idx));
      items.email.push(row.email);
    }
    if (rows.length < page) return items;
    from = items.idx[items.idx.length - 1]! + 1;
    await turn();
  }
}
