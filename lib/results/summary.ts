import type { Database, Db } from '../db/client';
import { jobStatusGroups } from '../db/queries/results';

/** What a job's stored results add up to, read from `verifications`. */

export interface JobSummary {
  /** rows of the list, duplicates included */
  total: number;
  /** rows whose mailbox appeared earlier: answered with the first one's result, not counted below */
  duplicates: number;
  valid: number;
  invalid: number;
  unknown: number;
  failed: number;
  deliverable: number;
  undeliverable: number;
  risky: number;
}

/**
 * The summary, computed from the stored results (never from a counter kept beside them). Each
 * mailbox counts once: valid + invalid + unknown + failed = total - duplicates. Read in the caller's
 * transaction in groups that add up (on SQLite ranges of indexes, a turn of the event loop between
 * them: lib/db/queries/results.ts).
 */
export async function summarize(
  tx: Pick<Db, '$queryRawUnsafe'>,
  dialect: Database['dialect'],
  jobId: string,
  total: number,
  duplicates = 0,
): Promise<JobSummary> {
  const summary: JobSummary = { total, duplicates, valid: 0, invalid: 0, unknown: 0, failed: 0, deliverable: 0, undeliverable: 0, risky: 0 };
  let processed = 0;
  for await (const rows of jobStatusGroups(tx, dialect, jobId))
    for (const row of rows) {
      const n = Number(row.n);
      processed += n;
      if (row.status === 'unknown') summary.unknown += n;
      else if (row.valid === true || row.valid === 1) summary.valid += n;
      else summary.invalid += n;
      if (row.status === 'deliverable') summary.deliverable += n;
      else if (row.status === 'undeliverable') summary.undeliverable += n;
      else if (row.status !== 'unknown') summary.risky += n;
    }
  summary.failed = Math.max(0, total - duplicates - processed);
  return summary;
}
