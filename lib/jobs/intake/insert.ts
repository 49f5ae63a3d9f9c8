import { AUDIT_COLUMNS, type AuditRow, auditValues } from '../../audit/record';
import type { Database, Db } from '../../db/client';
import { progressRecount } from '../../db/job-progress';
import { insertRows } from '../../db/sql';
import { timestampValue } from '../../db/values';
import { writeStaged } from '../../db/staged-write';
import type { StoredUpload } from '../export/formats';
import { chunkQueue } from '../queue';
import { CHUNK_COLUMNS, chunkRows } from './chunk-rows';
import { COPY_BATCH, copyParams, copyReusedSql, type Reused } from './reuse';
import type { StringList } from './string-list';

/** Writing a submitted job: its row, its items (one per address) and its chunks. */

type Tx = Pick<Db, '$executeRawUnsafe'>;

const ITEM_COLUMNS = ['job_id', 'idx', 'email', 'row', 'duplicate_of'];

/** A job's addresses, their upload rows (JSON text each) and, per address, the index of its first occurrence or -1. */
export interface JobItems {
  emails: StringList;
  rows?: StringList;
  duplicateOf: Int32Array;
}

/** Item `idx`'s cells in ITEM_COLUMNS order, pushed onto `values` (a queued job's write binds or copies them without a row array). */
function itemCells(jobId: string, items: JobItems, values: unknown[], idx: number): void {
  const { emails, rows, duplicateOf } = items;
  const first = duplicateOf[idx]!;
  values.push(jobId, idx, emails.at(idx), rows ? (rows.at(idx) ?? '[]') : null, first >= 0 ? first : null);
}

function itemRows(jobId: string, items: JobItems): unknown[][] {
  const out: unknown[][] = [];
  for (let idx = 0; idx < items.emails.length; idx++) {
    const row: unknown[] = [];
    itemCells(jobId, items, row, idx);
    out.push(row);
  }
  return out;
}

export async function insertJobItems(tx: Tx, dialect: Database['dialect'], jobId: string, items: JobItems) {
  await insertRows(tx, dialect, 'job_items', ITEM_COLUMNS, itemRows(jobId, items));
}

/** A job's row as submission writes it, for an instant and a queued list alike (request.ts newJob). */
export interface NewJob extends StoredUpload {
  id: string;
  userId: string;
  sandbox: boolean;
  totalEmails: number;
  validEmails: number;
  invalidEmails: number;
  duplicateEmails: number;
  uploadBytes: number;
  reservedDay: string | null;
  reservedFree: number;
  reservedCredits: number;
}

// The row is written by column name (lib/db/staged-write.ts): one entry per field of NewJob (the type checks it).
const JOB_COLUMNS = {
  id: 'id',
  userId: 'user_id',
  sandbox: 'sandbox',
  totalEmails: 'total_emails',
  validEmails: 'valid_emails',
  invalidEmails: 'invalid_format_emails',
  duplicateEmails: 'duplicate_emails',
  uploadBytes: 'upload_bytes',
  uploadHeader: 'upload_header',
  uploadFilename: 'upload_filename',
  uploadDelimiter: 'upload_delimiter',
  uploadBom: 'upload_bom',
  uploadNewline: 'upload_newline',
  uploadSheet: 'upload_sheet',
  reservedDay: 'reserved_day',
  reservedFree: 'reserved_free',
  reservedCredits: 'reserved_credits',
} as const satisfies Record<keyof NewJob, string>;
const JOB_FIELDS = Object.keys(JOB_COLUMNS) as (keyof NewJob)[];

/**
 * Writes a queued job with its items and chunks; nothing half-written is ever visible, each
 * database in its own way (lib/db/staged-write.ts): the job's row is the head, its items the body,
 * the results reused from the account's fresh ones (reuse.ts) copies stored before any worker can
 * see the job, its chunks and the upload's audit row (lib/audit/record.ts) commit with the job row.
 * PostgreSQL's queue engine gets the chunks' deliveries in that same transaction
 * (lib/jobs/queue/pgboss.ts); the one-machine queue claims `job_chunks` itself
 * (lib/jobs/queue/table.ts), so it has nothing to enqueue.
 */
export async function insertQueuedJob(
  database: Database,
  job: NewJob,
  items: JobItems,
  chunkSize: number,
  reused: Reused[] = [],
  audit: AuditRow | null = null,
) {
  const { emails } = items;
  const { dialect } = database;
  const answered = new Set(reused.map((row) => row.idx));
  const now = Date.now();
  const chunks = chunkRows(job.id, emails.length, chunkSize, answered.size ? (idx) => !answered.has(idx) : undefined);
  const jobColumns = [...JOB_FIELDS.map((field) => JOB_COLUMNS[field]), 'status', 'created_at'];
  await writeStaged(database, {
    head: {
      row: (dialect) => ({
        table: 'jobs',
        columns: jobColumns,
        rows: [[...JOB_FIELDS.map((field) => job[field]), 'queued', timestampValue(dialect, Date.now())]],
      }),
    },
    body: {
      table: 'job_items',
      columns: ITEM_COLUMNS,
      count: emails.length,
      cells: (values, idx) => itemCells(job.id, items, values, idx),
    },
    copies: reusedCopies(dialect, job.id, now, reused, emails),
    tail: { table: 'job_chunks', columns: CHUNK_COLUMNS, rows: chunks },
    enqueue: (tx) => chunkQueue(database).enqueue(tx, job, chunks.length),
    alongside: audit && { row: (dialect) => ({ table: 'audit_events', columns: AUDIT_COLUMNS, rows: [auditValues(audit, dialect)] }) },
    undo: [
      { sql: 'DELETE FROM job_items WHERE job_id = ?', values: [job.id] },
      ...(reused.length
        ? [
            { sql: 'DELETE FROM verifications WHERE job_id = ?', values: [job.id] },
            { sql: 'DELETE FROM job_progress WHERE job_id = ?', values: [job.id] },
          ]
        : []),
    ],
  });
}

/** The statements that store the reused results, COPY_BATCH rows each, made as they run, then the count of the job's progress they make (lib/db/job-progress.ts). */
function* reusedCopies(dialect: Database['dialect'], jobId: string, now: number, reused: Reused[], emails: StringList) {
  for (let from = 0; from < reused.length; from += COPY_BATCH) {
    yield { sql: copyReusedSql(dialect), values: copyParams(dialect, jobId, now, reused.slice(from, from + COPY_BATCH), emails) };
  }
  if (reused.length) yield progressRecount(jobId);
}
