import type { Database } from '../db/client';
import { selectArrays } from '../db/sql';
import { AppError } from '../errors/errors';
import { bucketCondition, type DownloadFilter } from '../results/rows';
import { cellWriter, csvCell, csvLine } from './csv-cells';
import { fileKind, uploadInfo, type DownloadFormat, type FileKind } from './formats';
import { pagedStream, xlsxStream } from './stream';

/**
 * The download's whole column contract: the result columns (RESULT_COLUMNS), the row read for them
 * (CsvRow, CSV_FLAGS, csvPage) and how a row becomes cells (resultLine, rowCells), then the file
 * the download route streams (resultsFile).
 */

export const RESULT_COLUMNS = [
  'email', 'valid', 'deliverable', 'risk_level', 'reason', 'status', 'score', 'provider',
  'disposable', 'role', 'free', 'catch_all', 'did_you_mean', 'cached', 'sub_reason', 'mailbox_provider',
] as const;

/**
 * Rows per page: fewer as the upload's columns widen, so reading and building one page stays a
 * few milliseconds of the event loop whatever the width. On SQLite the read itself is synchronous:
 * about 16,000 cells a page (1,000 rows of a results-only file); PostgreSQL's is awaited, so its
 * pages are five times that, for fewer round trips.
 */
const pageRows = (width: number, dialect: Database['dialect']) =>
  Math.max(20, Math.floor((dialect === 'postgres' ? 80_000 : 16_000) / (width + RESULT_COLUMNS.length)));

/**
 * The most bytes a job's download may send: EV_DOWNLOAD_RATIO times its upload plus 1 KB a row
 * (room for the result columns of a list of bare addresses); jobs from before upload sizes were
 * kept (0) have none. Columns no row fills are trimmed at submission (bulk-request.ts), so a
 * download cannot legitimately come near it: the cap is the backstop that keeps a download
 * proportional to what the account sent (docs/limits.md).
 */
export function downloadCap(job: { uploadBytes: number; totalEmails: number }, ratio: number): number {
  return job.uploadBytes > 0 ? ratio * job.uploadBytes + 1024 * job.totalEmails : Infinity;
}

/** A result row as the CSV download reads it; see `csvPage`. */
export type CsvRow = [
  idx: number, email: string, riskLevel: string, reason: string, status: string, score: number, provider: string,
  didYouMean: string | null, flags: number, subReason: string | null, mailboxProvider: string | null, row: string | null,
  duplicateOf?: number | null,
];

/** The bits of `CsvRow.flags`, in the order of the CSV's boolean columns. */
export const CSV_FLAGS = ['valid', 'deliverable', 'disposable', 'role', 'free', 'catch_all', 'cached'] as const;

/**
 * A page of results as the CSV writes them: [idx, email, risk_level, reason, status, score, provider,
 * did_you_mean, flags, sub_reason, mailbox_provider, upload row JSON or NULL, duplicate_of]. The seven booleans come as one integer
 * (bit i is CSV_FLAGS[i]): every value the driver hands back costs, and a million rows are streamed.
 * `withDuplicates` reads the job's rows and joins each to its first occurrence's result; without it
 * (a job with no duplicates, the common and fast case) only the results are read. Either way a row
 * with no result yet (a running job's partial download) is left out.
 */
export async function csvPage(
  database: Database, jobId: string, afterIdx: number, limit: number, withRows: boolean, bucket?: DownloadFilter, withDuplicates = false,
): Promise<CsvRow[]> {
  const filter = bucket ? `AND v.${bucketCondition(bucket)}` : '';
  // SQLite stores booleans as 0/1 already; parentheses because | and << share one precedence level
  const bit = (column: string, i: number) => `(${database.dialect === 'postgres' ? `v.${column}::int` : `v.${column}`} << ${i})`;
  const flags = CSV_FLAGS.map(bit).join(' | ');
  // sub_reason and mailbox_provider live in the details JSON (lib/results/rows.ts verificationRow)
  const detail = (key: string) => (database.dialect === 'postgres' ? `(v.details::json ->> '${key}')` : `json_extract(v.details, '$.${key}')`);
  const verdict = `v.risk_level, v.reason, v.status, v.score, v.provider, v.did_you_mean, ${flags} AS flags,
    ${detail('sub_reason')} AS sub_reason, ${detail('mailbox_provider')} AS mailbox_provider`;
  if (withDuplicates) {
    const query = `SELECT i.idx, i.email, ${verdict}, ${withRows ? 'i.row' : 'NULL AS row'}, i.duplicate_of
      FROM job_items i JOIN verifications v ON v.job_id = i.job_id AND v.idx = COALESCE(i.duplicate_of, i.idx)
      WHERE i.job_id = ? AND i.idx > ? ${filter} ORDER BY i.idx LIMIT ?`;
    return selectArrays(database, query, [jobId, afterIdx, limit]) as Promise<CsvRow[]>;
  }
  const from = withRows
    ? 'i.row FROM verifications v JOIN job_items i ON i.job_id = v.job_id AND i.idx = v.idx'
    : 'NULL AS row FROM verifications v';
  const query = `SELECT v.idx, v.email, ${verdict}, ${from}
    WHERE v.job_id = ? AND v.idx > ? ${filter} ORDER BY v.idx LIMIT ?`;
  return selectArrays(database, query, [jobId, afterIdx, limit]) as Promise<CsvRow[]>;
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
  if (kind.kind === 'xlsx') return { kind, body: xlsxStream(kind.sheet, header, nextPage(pages), (row) => rowCells(row, pages.width, pages.duplicates)) };
  const { delimiter, newline, bom } = kind.csv;
  if (delimiter === ',' && newline === '\r\n' && !bom) return { kind, body: plainCsv(header, pages) };
  const write = cellWriter(delimiter);
  const line = (cells: readonly unknown[]) => cells.map(write).join(delimiter) + newline;
  return {
    kind,
    body: pagedStream(
      () => (bom ? '\ufeff' : '') + line(header),
      (rows) => rows.map((row) => line(rowCells(row, pages.width, pages.duplicates))).join(''),
      nextPage(pages),
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
  return pagedStream(() => csvLine(header), (rows: CsvRow[]) => {
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
  }, nextPage(pages));
}

const nextPage = (pages: Pages) => (afterIdx: number) =>
  csvPage(pages.database, pages.jobId, afterIdx, pageRows(pages.width, pages.database.dialect), pages.width > 0, pages.filter, pages.duplicates);
