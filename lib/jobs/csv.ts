import Papa from 'papaparse';
import type { Database } from '../db/client';
import { ApiError } from '../api/errors';
import type { Bucket } from './results';
import { csvPage, type CsvRow } from './store';

export const RESULT_COLUMNS = [
  'email', 'valid', 'deliverable', 'risk_level', 'reason', 'status', 'score', 'provider',
  'disposable', 'role', 'free', 'catch_all', 'did_you_mean', 'cached',
] as const;

const PAGE = 5000;
// papaparse's default pattern ends in `.*$`, which misses cells that contain a line break.
export const FORMULA_START = /^[=+\-@\t\r]/;
/** What makes papaparse quote a string: a quote, comma, CR, LF or BOM anywhere, a space first or last, a formula start. */
const SPECIAL = /[",\r\n\ufeff]|^[ =+\-@\t\r]| $/;

/**
 * One cell exactly as `Papa.unparse(rows, { escapeFormulae: FORMULA_START })` (papaparse 5.7.1)
 * writes it: a string starting like a formula gets a `'` in front and quotes; a string holding a
 * quote, comma, CR, LF or BOM, or starting or ending with a space, is quoted with its quotes
 * doubled; null and undefined are empty; numbers and booleans are written as they are.
 * csv.test.ts holds this against papaparse for hostile and random cells.
 */
export function csvCell(value: unknown): string {
  if (typeof value === 'string') {
    if (!SPECIAL.test(value)) return value;
    const escaped = value.includes('"') ? value.replaceAll('"', '""') : value;
    return FORMULA_START.test(value) ? `"'${escaped}"` : `"${escaped}"`;
  }
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return Papa.unparse([[value]], { escapeFormulae: FORMULA_START, newline: '\r\n' }); // dates, objects: never stored
}

/** One CSV record with its CRLF, as `Papa.unparse([cells], …) + '\r\n'` writes it. */
export function csvLine(cells: readonly unknown[]): string {
  let line = '';
  for (let i = 0; i < cells.length; i++) line += (i ? ',' : '') + csvCell(cells[i]);
  return `${line}\r\n`;
}

// The boolean cells from CsvRow.flags (bits in CSV_FLAGS order): valid,deliverable are bits 0-1,
// disposable,role,free,catch_all bits 2-5, cached bit 6.
const flagText = (bits: number, count: number) =>
  Array.from({ length: count }, (_, i) => ((bits >> i) & 1 ? 'true' : 'false')).join(',');
const VALID_DELIVERABLE = Array.from({ length: 4 }, (_, bits) => flagText(bits, 2));
const DISPOSABLE_TO_CATCH_ALL = Array.from({ length: 16 }, (_, bits) => flagText(bits, 4));
const CACHED = ['false', 'true'];

/** The result cells of one row (RESULT_COLUMNS order), with its CRLF. */
export function resultLine(row: CsvRow): string {
  const flags = row[8];
  return `${csvCell(row[1])},${VALID_DELIVERABLE[flags & 3]},${csvCell(row[2])},${csvCell(row[3])},${csvCell(row[4])},${csvCell(row[5])},${
    csvCell(row[6])},${DISPOSABLE_TO_CATCH_ALL[(flags >> 2) & 15]},${csvCell(row[7])},${CACHED[(flags >> 6) & 1]}\r\n`;
}

/** The upload's cells of one row (padded to the upload's header), each followed by a comma. */
function uploadedCells(json: string | null, width: number): string {
  const uploaded = JSON.parse(json ?? '[]') as unknown[];
  let cells = '';
  for (let i = 0; i < width; i++) cells += `${csvCell(uploaded[i] ?? '')},`;
  return cells;
}

/**
 * `duplicate_of`: the row of the first occurrence as a spreadsheet numbers the full download (the
 * header is row 1, the first address row 2), so a marketer can go to it in Excel.
 */
const duplicateCell = (first: number | null | undefined) => (first === null || first === undefined ? '' : String(Number(first) + 2));

type DownloadedJob = { id: string; status: string; columns: string | null; duplicateEmails: number };

/**
 * The results as CSV, streamed page by page (memory stays flat for a million rows). Original
 * upload columns come first, then the verdict, then `duplicate_of` when the list has duplicates
 * (every row is kept; a duplicate carries its first occurrence's verdict). Cells starting with
 * = + - @ tab CR get a `'` in front (formula injection), as papaparse's escapeFormulae does; see
 * csvCell. `partial`: a job that has not completed gives the rows answered so far.
 */
export function resultsCsv(database: Database, job: DownloadedJob, bucket?: Bucket, { partial = false } = {}): ReadableStream<Uint8Array> {
  if (job.status !== 'completed' && !partial) {
    throw new ApiError('job_not_completed', `Job ${job.id} is ${job.status}; results can be downloaded once it is completed (or add partial=true for the rows answered so far).`);
  }
  const original = job.columns ? ((JSON.parse(job.columns) as { columns?: string[] }).columns ?? []) : [];
  const duplicates = job.duplicateEmails > 0;
  let afterIdx = -1;
  let headerSent = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!headerSent) {
        headerSent = true;
        controller.enqueue(Buffer.from(csvLine([...original, ...RESULT_COLUMNS, ...(duplicates ? ['duplicate_of'] : [])])));
        return;
      }
      const rows = await csvPage(database, job.id, afterIdx, PAGE, original.length > 0, bucket, duplicates);
      if (rows.length === 0) {
        controller.close();
        return;
      }
      afterIdx = Number(rows[rows.length - 1]![0]);
      // one string per page, encoded once
      let page = '';
      if (duplicates) {
        for (const row of rows) page += `${uploadedCells(row[9], original.length) + resultLine(row).slice(0, -2)},${duplicateCell(row[10])}\r\n`;
      } else if (original.length) for (const row of rows) page += uploadedCells(row[9], original.length) + resultLine(row);
      else for (const row of rows) page += resultLine(row);
      controller.enqueue(Buffer.from(page));
    },
  });
}
