import type { Database } from '../../db/client';
import { downloadPageCells } from '../../db/queries/jobs';
import { selectArrays } from '../../db/sql';
import { AppError, invalidRequest } from '../../errors/app-error';
import { CHANGED_SQL } from '../../monitors/changes';
import { bucketCondition, type DownloadFilter } from '../../results/rows';
import { DUPLICATE_AT, DUPLICATE_COLUMN, RESULT_COLUMNS, type ResultRow, resultCells, resultSelect, resultValues, UPLOAD_AT } from './columns';
import { cellWriter, csvCell, csvLine } from './csv-cells';
import { type DownloadFormat, type FileKind, fileKind, type StoredUpload, uploadInfo } from './formats';
import { pagedStream, xlsxStream } from './stream';

/**
 * The file the download route streams (resultsFile): pages of rows read by csvPage, written as CSV
 * or xlsx. The result columns, how they are read and written, are declared in columns.ts.
 */

/**
 * Rows per page: fewer as the upload's columns widen, so reading and building one page stays a
 * few milliseconds of the event loop whatever the width (the cells a page reads, by database:
 * downloadPageCells, lib/db/queries/jobs.ts).
 */
const pageRows = (width: number, dialect: Database['dialect']) => Math.max(20, Math.floor(downloadPageCells(dialect) / (width + RESULT_COLUMNS.length)));

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

/**
 * A page of results as the download writes them (ResultRow, lib/jobs/export/columns.ts). `withDuplicates`
 * reads the job's rows and joins each to its first occurrence's result; without it (a job with no
 * duplicates, the common and fast case) only the results are read. Either way a row with no result
 * yet (a running job's partial download) is left out.
 */
export async function csvPage(
  database: Database,
  jobId: string,
  afterIdx: number,
  limit: number,
  withRows: boolean,
  bucket?: DownloadFilter,
  withDuplicates = false,
  changedSince?: string,
): Promise<ResultRow[]> {
  // `changedSince`: only the rows whose verdict differs from that job's (a monitor's run against the one before)
  const filter = (bucket ? `AND v.${bucketCondition(bucket)}` : '') + (changedSince ? ` AND ${CHANGED_SQL}` : '');
  const params = changedSince ? [jobId, afterIdx, changedSince, limit] : [jobId, afterIdx, limit];
  if (withDuplicates) {
    const query = `SELECT i.idx, ${resultSelect(database.dialect, 'i')}, ${withRows ? 'i.row' : 'NULL AS row'}, i.duplicate_of
      FROM job_items i JOIN verifications v ON v.job_id = i.job_id AND v.idx = COALESCE(i.duplicate_of, i.idx)
      WHERE i.job_id = ? AND i.idx > ? ${filter} ORDER BY i.idx LIMIT ?`;
    return selectArrays(database, query, params);
  }
  const from = withRows ? 'i.row FROM verifications v JOIN job_items i ON i.job_id = v.job_id AND i.idx = v.idx' : 'NULL AS row FROM verifications v';
  const query = `SELECT v.idx, ${resultSelect(database.dialect, 'v')}, ${from}
    WHERE v.job_id = ? AND v.idx > ? ${filter} ORDER BY v.idx LIMIT ?`;
  return selectArrays(database, query, params);
}

/** The result cells of one row (RESULT_COLUMNS order), with its CRLF. */
export const resultLine = (row: ResultRow): string => `${resultCells(row, csvCell)}\r\n`;

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
const duplicateRow = (first: unknown) => (first === null || first === undefined ? null : Number(first) + 2);

/** Every cell of one row as values (upload cells, then RESULT_COLUMNS, then duplicate_of), for the other formats. */
function rowCells(row: ResultRow, width: number, duplicates: boolean): unknown[] {
  const uploaded = width ? (JSON.parse((row[UPLOAD_AT] as string | null) ?? '[]') as unknown[]) : [];
  const cells: unknown[] = [];
  for (let i = 0; i < width; i++) cells.push(uploaded[i] ?? '');
  resultValues(row, cells);
  if (duplicates) cells.push(duplicateRow(row[DUPLICATE_AT]));
  return cells;
}

type DownloadedJob = { id: string; status: string; duplicateEmails: number; previousJobId?: string | null } & StoredUpload;

export interface DownloadOptions {
  filter?: DownloadFilter;
  /** a job that has not completed gives the rows answered so far */
  partial?: boolean;
  format?: DownloadFormat;
  /** a monitor's run: only the rows whose verdict changed since the run before */
  changed?: boolean;
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
    throw new AppError(
      'job_not_completed',
      `Job ${job.id} is ${job.status}; results can be downloaded once it is completed (or add partial=true for the rows answered so far).`,
    );
  }
  if (options.changed && !job.previousJobId) throw invalidRequest('changed', `Job ${job.id} is not a monitor's run: it has no run before it to compare with.`);
  const upload = uploadInfo(job);
  const kind = fileKind(options.format ?? 'original', upload.format);
  const pages = {
    database,
    jobId: job.id,
    width: upload.columns.length,
    filter: options.filter,
    duplicates: job.duplicateEmails > 0,
    changedSince: options.changed ? (job.previousJobId ?? undefined) : undefined,
  };
  const header = [...upload.columns, ...RESULT_COLUMNS, ...(pages.duplicates ? [DUPLICATE_COLUMN.name] : [])];
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
  changedSince?: string;
}

/** The fast path: comma, CRLF, no BOM, cells built from precomputed flag texts. */
function plainCsv(header: string[], pages: Pages): ReadableStream<Uint8Array> {
  const { width, duplicates } = pages;
  return pagedStream(
    () => csvLine(header),
    (rows: ResultRow[]) => {
      // one string per page, encoded once
      let page = '';
      if (duplicates) {
        for (const row of rows) {
          const first = duplicateRow(row[DUPLICATE_AT]);
          page += `${uploadedCells(row[UPLOAD_AT] as string | null, width) + resultCells(row, csvCell)},${first ?? ''}\r\n`;
        }
      } else if (width) for (const row of rows) page += uploadedCells(row[UPLOAD_AT] as string | null, width) + resultLine(row);
      else for (const row of rows) page += resultLine(row);
      return page;
    },
    nextPage(pages),
  );
}

const nextPage = (pages: Pages) => (afterIdx: number) =>
  csvPage(
    pages.database,
    pages.jobId,
    afterIdx,
    pageRows(pages.width, pages.database.dialect),
    pages.width > 0,
    pages.filter,
    pages.duplicates,
    pages.changedSince,
  );
