import Papa from 'papaparse';
import type { Database } from '../db/client';
import { AppError } from '../errors';
import { fileKind, uploadInfo, type DownloadFormat, type FileKind } from './formats';
import type { DownloadFilter } from '../verifications/rows';
import { CSV_FLAGS, csvPage, type CsvRow } from './store';
import { XlsxWriter } from './xlsx';

export const RESULT_COLUMNS = [
  'email', 'valid', 'deliverable', 'risk_level', 'reason', 'status', 'score', 'provider',
  'disposable', 'role', 'free', 'catch_all', 'did_you_mean', 'cached', 'sub_reason', 'mailbox_provider',
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
    csvCell(row[6])},${DISPOSABLE_TO_CATCH_ALL[(flags >> 2) & 15]},${csvCell(row[7])},${CACHED[(flags >> 6) & 1]},${csvCell(row[9])},${csvCell(row[10])}\r\n`;
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
const duplicateRow = (first: number | null | undefined) => (first === null || first === undefined ? null : Number(first) + 2);

/** Every cell of one row as values (upload cells, then RESULT_COLUMNS, then duplicate_of), for the other formats. */
function rowCells(row: CsvRow, width: number, duplicates: boolean): unknown[] {
  const uploaded = width ? (JSON.parse(row[11] ?? '[]') as unknown[]) : [];
  const cells: unknown[] = [];
  for (let i = 0; i < width; i++) cells.push(uploaded[i] ?? '');
  const flag = (name: (typeof CSV_FLAGS)[number]) => ((row[8] >> CSV_FLAGS.indexOf(name)) & 1 ? 'true' : 'false');
  cells.push(row[1], flag('valid'), flag('deliverable'), row[2], row[3], row[4], Number(row[5]), row[6],
    flag('disposable'), flag('role'), flag('free'), flag('catch_all'), row[7], flag('cached'), row[9], row[10]);
  if (duplicates) cells.push(duplicateRow(row[12]));
  return cells;
}

/** A cell for a CSV of another delimiter: the same rules as csvCell, with that delimiter quoted instead of the comma. */
function cellWriter(delimiter: string): (value: unknown) => string {
  if (delimiter === ',') return csvCell;
  const special = new RegExp(`["${delimiter === '|' ? '\\|' : delimiter}\\r\\n\\ufeff]|^[ =+\\-@\\t\\r]| $`);
  return (value) => {
    if (typeof value !== 'string') return csvCell(value);
    if (!special.test(value)) return value;
    const escaped = value.replaceAll('"', '""');
    return FORMULA_START.test(value) ? `"'${escaped}"` : `"${escaped}"`;
  };
}

type DownloadedJob = { id: string; status: string; columns: string | null; duplicateEmails: number };

export interface DownloadOptions {
  filter?: DownloadFilter;
  /** a job that has not completed gives the rows answered so far */
  partial?: boolean;
  format?: DownloadFormat;
}

/**
 * A job's results as a file, streamed page by page (memory stays flat for a million rows). Original
 * upload columns come first, then the verdict, then `duplicate_of` when the list has duplicates
 * (every row is kept; a duplicate carries its first occurrence's verdict). `format`: `original`
 * (default) writes the upload's delimiter, BOM and line ends, or .xlsx for an .xlsx upload; `csv`
 * plain RFC 4180 CSV; `xlsx` an Excel workbook. CSV cells starting with = + - @ tab CR get a `'` in
 * front (formula injection), as papaparse's escapeFormulae does; see csvCell.
 */
export function resultsFile(database: Database, job: DownloadedJob, options: DownloadOptions = {}): { body: ReadableStream<Uint8Array>; kind: FileKind } {
  if (job.status !== 'completed' && !options.partial) {
    throw new AppError('job_not_completed', `Job ${job.id} is ${job.status}; results can be downloaded once it is completed (or add partial=true for the rows answered so far).`);
  }
  const upload = uploadInfo(job.columns);
  const kind = fileKind(options.format ?? 'original', upload.format);
  const pages = { database, jobId: job.id, width: upload.columns.length, filter: options.filter, duplicates: job.duplicateEmails > 0 };
  const header = [...upload.columns, ...RESULT_COLUMNS, ...(pages.duplicates ? ['duplicate_of'] : [])];
  if (kind.kind === 'xlsx') return { kind, body: xlsxStream(kind.sheet, header, pages) };
  const { delimiter, newline, bom } = kind.csv;
  if (delimiter === ',' && newline === '\r\n' && !bom) return { kind, body: plainCsv(header, pages) };
  const write = cellWriter(delimiter);
  const line = (cells: readonly unknown[]) => cells.map(write).join(delimiter) + newline;
  return {
    kind,
    body: pagedStream(
      () => (bom ? '\ufeff' : '') + line(header),
      (rows) => rows.map((row) => line(rowCells(row, pages.width, pages.duplicates))).join(''),
      pages,
    ),
  };
}

/** The plain CSV (the API's own format, and the upload's when it was plain): see resultsFile. */
export function resultsCsv(database: Database, job: DownloadedJob, filter?: DownloadFilter, { partial = false } = {}): ReadableStream<Uint8Array> {
  return resultsFile(database, job, { filter, partial, format: 'csv' }).body;
}

interface Pages {
  database: Database;
  jobId: string;
  width: number;
  filter?: DownloadFilter;
  duplicates: boolean;
}

/** The fast path: comma, CRLF, no BOM, cells built from precomputed flag texts. */
function plainCsv(header: string[], pages: Pages): ReadableStream<Uint8Array> {
  const { width, duplicates } = pages;
  return pagedStream(() => csvLine(header), (rows) => {
    // one string per page, encoded once
    let page = '';
    if (duplicates) {
      for (const row of rows) {
        const first = duplicateRow(row[12]);
        page += `${uploadedCells(row[11], width) + resultLine(row).slice(0, -2)},${first ?? ''}\r\n`;
      }
    } else if (width) for (const row of rows) page += uploadedCells(row[11], width) + resultLine(row);
    else for (const row of rows) page += resultLine(row);
    return page;
  }, pages);
}

function pagedStream(head: () => string, page: (rows: CsvRow[]) => string, pages: Pages): ReadableStream<Uint8Array> {
  let afterIdx = -1;
  let headerSent = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!headerSent) {
        headerSent = true;
        controller.enqueue(Buffer.from(head()));
        return;
      }
      const rows = await nextPage(pages, afterIdx);
      if (rows.length === 0) {
        controller.close();
        return;
      }
      afterIdx = Number(rows[rows.length - 1]![0]);
      controller.enqueue(Buffer.from(page(rows)));
    },
  });
}

const nextPage = (pages: Pages, afterIdx: number) =>
  csvPage(pages.database, pages.jobId, afterIdx, PAGE, pages.width > 0, pages.filter, pages.duplicates);

function xlsxStream(sheet: string, header: string[], pages: Pages): ReadableStream<Uint8Array> {
  let writer: XlsxWriter;
  let afterIdx = -1;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      writer = new XlsxWriter(sheet, (chunk, final) => {
        if (chunk.length) controller.enqueue(chunk);
        if (final) controller.close();
      }, (error) => controller.error(error));
      writer.rows([header]);
    },
    async pull() {
      const rows = await nextPage(pages, afterIdx);
      if (rows.length === 0) return writer.end();
      afterIdx = Number(rows[rows.length - 1]![0]);
      writer.rows(rows.map((row) => rowCells(row, pages.width, pages.duplicates)));
    },
  });
}
