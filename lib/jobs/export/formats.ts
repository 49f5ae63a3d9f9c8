/**
 * The file format of an upload, kept on the job so its download opens as the upload did: Excel in
 * most of Europe writes `;`-separated CSV with a byte order mark (without the BOM it reads UTF-8 as
 * Windows-1252 and breaks umlauts; without the `;` it shows one column), and a list read from an
 * `.xlsx` sheet goes back as `.xlsx`.
 */
export interface UploadFormat {
  delimiter: ',' | ';' | '\t' | '|';
  bom: boolean;
  newline: '\r\n' | '\n';
  /** set for an .xlsx upload: the sheet the list was read from */
  sheet: string | null;
}

/** What the API's own CSV has always been: comma, CRLF (RFC 4180), no BOM. */
export const PLAIN_CSV: UploadFormat = { delimiter: ',', bom: false, newline: '\r\n', sheet: null };

/** The format fields of a bulk request, or undefined when it gave none (an API caller's list). */
export function uploadFormat(given: {
  delimiter?: UploadFormat['delimiter'];
  bom?: boolean;
  newline?: UploadFormat['newline'];
  sheet?: string;
}): UploadFormat | undefined {
  if (given.delimiter === undefined && given.bom === undefined && given.newline === undefined && given.sheet === undefined) return undefined;
  return {
    delimiter: given.delimiter ?? PLAIN_CSV.delimiter,
    bom: given.bom ?? PLAIN_CSV.bom,
    newline: given.newline ?? PLAIN_CSV.newline,
    sheet: given.sheet ?? null,
  };
}

/** The upload as the download and the dashboard use it: its header, file name and format. */
export interface UploadInfo {
  columns: string[];
  filename: string | null;
  format: UploadFormat | null;
}

/** The upload's columns of a job row (jobs.upload_*): the header as a JSON array; no delimiter, no format. */
export interface StoredUpload {
  uploadHeader: string | null;
  uploadFilename: string | null;
  uploadDelimiter: string | null;
  uploadBom: boolean | null;
  uploadNewline: string | null;
  uploadSheet: string | null;
}

export function uploadInfo(job: StoredUpload): UploadInfo {
  const format =
    job.uploadDelimiter === null
      ? null
      : {
          delimiter: job.uploadDelimiter as UploadFormat['delimiter'],
          bom: Boolean(job.uploadBom),
          newline: (job.uploadNewline ?? PLAIN_CSV.newline) as UploadFormat['newline'],
          sheet: job.uploadSheet,
        };
  return { columns: job.uploadHeader ? (JSON.parse(job.uploadHeader) as string[]) : [], filename: job.uploadFilename, format };
}

/** An upload as the job row's columns. */
export function storedUpload(upload: Partial<UploadInfo>): StoredUpload {
  return {
    uploadHeader: upload.columns ? JSON.stringify(upload.columns) : null,
    uploadFilename: upload.filename ?? null,
    uploadDelimiter: upload.format?.delimiter ?? null,
    uploadBom: upload.format ? upload.format.bom : null,
    uploadNewline: upload.format?.newline ?? null,
    uploadSheet: upload.format?.sheet ?? null,
  };
}

/** A download's shape: `original` follows the upload (an .xlsx upload gives .xlsx), `csv` is PLAIN_CSV. */
export type DownloadFormat = 'original' | 'csv' | 'xlsx';

export type FileKind = { kind: 'csv'; csv: UploadFormat } | { kind: 'xlsx'; sheet: string };

export function fileKind(format: DownloadFormat, upload: UploadFormat | null): FileKind {
  if (format === 'xlsx' || (format === 'original' && upload?.sheet)) return { kind: 'xlsx', sheet: upload?.sheet ?? 'Results' };
  if (format === 'csv' || !upload) return { kind: 'csv', csv: PLAIN_CSV };
  return { kind: 'csv', csv: { ...upload, sheet: null } };
}
