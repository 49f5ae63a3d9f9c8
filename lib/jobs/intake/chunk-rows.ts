import { env } from '../../config/env';

/**
 * A queued job's chunks (`job_chunks` rows: ranges of item indexes that workers claim, the ledger of
 * lib/jobs/queue/ledger.ts): cut at submission (insert.ts) and for a monitor's run (lib/monitors/runs.ts).
 */

export const CHUNK_COLUMNS = ['job_id', 'no', 'start_idx', 'end_idx'];

/** Addresses per chunk: a production chunk is at most 100 (each is an SMTP conversation), a sandbox one EV_CHUNK_SIZE. */
export function chunkSize(sandbox: boolean): number {
  return sandbox ? Math.max(env().EV_CHUNK_SIZE, 1) : Math.max(1, Math.min(env().EV_CHUNK_SIZE, 100));
}

export function chunkRows(jobId: string, total: number, chunkSize: number, needsWork?: (idx: number) => boolean): unknown[][] {
  const values: unknown[][] = [];
  if (!needsWork) {
    for (let no = 0, start = 0; start < total; no++, start += chunkSize) values.push([jobId, no, start, Math.min(total, start + chunkSize)]);
    return values;
  }
  // Rows answered already (reused results, lib/jobs/intake/reuse.ts) cost a chunk nothing: each chunk spans
  // the rows that hold `chunkSize` to verify, so the chunks a job has follow its work, not its length.
  // They still cover every row, end to end; a job with nothing left to verify has one.
  let start = 0;
  let work = 0;
  for (let idx = 0; idx < total; idx++) {
    if (needsWork(idx) && ++work === chunkSize) {
      values.push([jobId, values.length, start, idx + 1]);
      start = idx + 1;
      work = 0;
    }
  }
  if (start < total || values.length === 0) values.push([jobId, values.length, start, total]);
  return values;
}
