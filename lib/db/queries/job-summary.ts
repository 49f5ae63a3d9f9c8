import { setImmediate as turn } from 'node:timers/promises';
import type { Db, Dialect } from '../types';
import { byDialect, q } from '../sql';

/**
 * Result indexes counted per SQLite statement of a job's summary: about 0.45 µs a row through the
 * Prisma adapter (docs/benchmarks.md), so a few milliseconds of the event loop each.
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
  const top = Number(bounds.top);
  for (let from = Number(bounds.low ?? 0); from <= top; from += SUMMARY_RANGE) {
    yield await tx.$queryRawUnsafe<StatusGroup[]>(GROUPS_IN_RANGE, jobId, from, Math.min(from + SUMMARY_RANGE, top + 1));
    if (from + SUMMARY_RANGE <= top) await turn();
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
