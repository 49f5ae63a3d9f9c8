import Papa from 'papaparse';
import type { Database } from '../db/client';
import { ApiError } from '../api/errors';
import type { Bucket } from './results';
import { csvPage } from './store';

export const RESULT_COLUMNS = [
  'email', 'valid', 'deliverable', 'risk_level', 'reason', 'status', 'score', 'provider',
  'disposable', 'role', 'free', 'catch_all', 'did_you_mean', 'cached',
] as const;

const PAGE = 5000;
// papaparse's default pattern ends in `.*$`, which misses cells that contain a line break.
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * The results as CSV, streamed page by page (memory stays flat for a million rows). Original
 * upload columns come first. papaparse's escapeFormulae prefixes cells starting with = + - @ tab CR.
 */
export function resultsCsv(database: Database, job: { id: string; status: string; columns: string | null }, bucket?: Bucket): ReadableStream<Uint8Array> {
  if (job.status !== 'completed') {
    throw new ApiError('job_not_completed', `Job ${job.id} is ${job.status}; results can be downloaded once it is completed.`);
  }
  const original = job.columns ? ((JSON.parse(job.columns) as { columns: string[] }).columns ?? []) : [];
  const encoder = new TextEncoder();
  const unparse = (rows: unknown[][]) => Papa.unparse(rows, { escapeFormulae: FORMULA_START, newline: '\r\n' }) + '\r\n';
  let afterIdx = -1;
  let headerSent = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!headerSent) {
        headerSent = true;
        controller.enqueue(encoder.encode(unparse([[...original, ...RESULT_COLUMNS]])));
        return;
      }
      const rows = await csvPage(database, job.id, afterIdx, PAGE, original.length > 0, bucket);
      if (rows.length === 0) {
        controller.close();
        return;
      }
      afterIdx = Number(rows[rows.length - 1]![0]);
      // Each row is [idx, ...result cells, upload row JSON]; the upload's cells go first.
      const lines = rows.map((row) => {
        const cells = row.slice(1, -1);
        if (!original.length) return cells;
        const uploaded = JSON.parse((row[row.length - 1] as string | null) ?? '[]') as string[];
        const padded = Array.from({ length: original.length }, (_, i) => uploaded[i] ?? '');
        return [...padded, ...cells];
      });
      controller.enqueue(encoder.encode(unparse(lines)));
    },
  });
}
