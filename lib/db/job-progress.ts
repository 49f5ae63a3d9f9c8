import type { Database, Db } from './client';
import { insertRows, prepared, q, sqliteInsert } from './sql';

/**
 * A job's progress, `job_progress.processed`: its rows answered so far, duplicates included (a
 * result answers its own row and every later duplicate of it, `job_items.duplicate_of`), read by
 * every poll (lib/jobs/status/status.ts). It changes in the transaction that stores the results, so
 * a poll never sees one without the other, and a result stored twice (`ON CONFLICT DO NOTHING`
 * skips it) counts once.
 *
 * PostgreSQL counts with a trigger, once per INSERT statement over the rows it stored (migration
 * 20261125150000_neighbours). SQLite's trigger ran once per row (an upsert of `job_progress` and a
 * duplicates lookup for each: 0.7 µs of a stored result's 5.7, docs/benchmarks.md); it is gone (migration
 * 20261128180000_progress_per_save) and every writer of a job's results on SQLite counts here,
 * once per save: the worker's saves (`sqliteSaveResults`, from lib/db/insert-while-held.ts), and
 * the statements that store results inside the database (an instant list's, the reused results'
 * copies) with `PROGRESS_RECOUNT` after them.
 */

/** the job's duplicates whose first occurrence lies in a range of indexes: the partial index on duplicate_of */
const DUPLICATES_IN_RANGE = 'SELECT duplicate_of FROM job_items WHERE job_id = ? AND duplicate_of >= ? AND duplicate_of <= ?';
const ADD = `INSERT INTO job_progress (job_id, processed) VALUES (?, ?)
  ON CONFLICT (job_id) DO UPDATE SET processed = job_progress.processed + excluded.processed`;
/** ids grow (AUTOINCREMENT): in the write transaction, the rows after this one are the save's own */
const LAST_ID = 'SELECT MAX(id) FROM verifications';
const STORED_AFTER = 'SELECT job_id, idx FROM verifications WHERE id > ?';

type Bulk = NonNullable<Database['bulk']>;

/**
 * SQLite's direct connection: stores results (rows in `columns` order, `ON CONFLICT DO NOTHING` in
 * `suffix`) and adds what it stored to their jobs' progress, in the caller's transaction (or one of
 * its own). When every row went in (the insert's change count says so) the rows themselves say
 * which; when some were stored already (a result saved twice), the rows this save added are read
 * back by id.
 */
export function sqliteSaveResults(bulk: Bulk, columns: readonly string[], rows: readonly unknown[][], suffix: string): void {
  bulk.transaction(() => {
    const lastId = prepared(bulk, LAST_ID).pluck(true).get() as number | bigint | null;
    const stored = sqliteInsert(bulk, 'verifications', columns, rows, suffix);
    if (stored === 0) return;
    // every row went in: the rows say which; else the rows this save added, read back by id
    const all = stored === rows.length;
    const read = all
      ? rows
      : (prepared(bulk, STORED_AFTER)
          .raw(true)
          .all(lastId ?? 0) as unknown[][]);
    const jobAt = all ? columns.indexOf('job_id') : 0;
    const idxAt = all ? columns.indexOf('idx') : 1;
    // a save holds one job's results: a Map only because a caller may mix them
    const byJob = new Map<string, number[]>();
    for (const row of read) {
      const jobId = row[jobAt] as string | null;
      if (jobId == null || row[idxAt] == null) continue;
      let list = byJob.get(jobId);
      if (!list) byJob.set(jobId, (list = []));
      list.push(Number(row[idxAt]));
    }
    for (const [jobId, idxs] of byJob) prepared(bulk, ADD).run(jobId, idxs.length + duplicatesOf(bulk, jobId, idxs));
  })();
}

/** How many of the job's items are duplicates of one of `idxs`: one range read, empty for a list without duplicates. */
function duplicatesOf(bulk: Bulk, jobId: string, idxs: number[]): number {
  let low = idxs[0]!;
  let high = low;
  for (const idx of idxs) {
    if (idx < low) low = idx;
    else if (idx > high) high = idx;
  }
  const firsts = prepared(bulk, DUPLICATES_IN_RANGE).pluck(true).all(jobId, low, high) as number[];
  if (firsts.length === 0) return 0;
  const stored = new Set(idxs);
  let count = 0;
  for (const first of firsts) if (stored.has(first)) count++;
  return count;
}

/**
 * Sets a job's progress to what its stored results answer, counted again: after statements that store
 * results inside the database (an instant list's rows, the copies of reused results), which neither
 * engine's per-save count sees. Parameters: the job's id, three times (`progressRecount`). On
 * PostgreSQL the trigger counted them already; this sets the same number.
 */
const PROGRESS_RECOUNT = `INSERT INTO job_progress (job_id, processed)
  SELECT ?, (SELECT COUNT(*) FROM verifications WHERE job_id = ?)
    + (SELECT COUNT(*) FROM job_items i JOIN verifications v ON v.job_id = i.job_id AND v.idx = i.duplicate_of
        WHERE i.job_id = ? AND i.duplicate_of IS NOT NULL)
  WHERE true
  ON CONFLICT (job_id) DO UPDATE SET processed = excluded.processed`;

/** The recount of a job's progress as a statement (written with `?`), for a write made of statements (lib/db/staged-write.ts). */
export function progressRecount(jobId: string): { sql: string; values: unknown[] } {
  return { sql: PROGRESS_RECOUNT, values: [jobId, jobId, jobId] };
}

/** The recount of a job's progress in the caller's transaction (an instant list's, whose results it stores itself). */
export async function recountProgress(tx: Pick<Db, '$executeRawUnsafe'>, dialect: Database['dialect'], jobId: string): Promise<void> {
  await tx.$executeRawUnsafe(q(dialect, PROGRESS_RECOUNT), jobId, jobId, jobId);
}

/**
 * Stores results outside any transaction of the caller and counts them (tests, bench fixtures): the
 * direct connection's save above on SQLite, multi-row INSERTs through Prisma on PostgreSQL (its
 * trigger counts).
 */
export async function saveCountedResults(database: Database, columns: readonly string[], rows: readonly unknown[][], suffix: string): Promise<void> {
  const { bulk, writeLock } = database;
  if (bulk && writeLock) await writeLock.run(() => sqliteSaveResults(bulk, columns, rows, suffix));
  else await insertRows(database.prisma, database.dialect, 'verifications', columns, rows, suffix);
}
