import type { Database, Db } from '../../db/client';
import { AUDIT_COLUMNS, auditValues, type AuditRow } from '../../audit/record';
import { setImmediate as turn } from 'node:timers/promises';
import { insertRows, q, sqliteInsert } from '../../db/sql';
import type { StoredUpload } from '../export/formats';
import { chunkQueue } from '../queue';
import { CHUNK_COLUMNS, chunkRows } from './chunk-rows';
import { COPY_BATCH, copyParams, copyReusedSql, type Reused } from './reuse';

/** Writing a submitted job: its row, its items (one per address) and its chunks. */

type Tx = Pick<Db, '$executeRawUnsafe'>;

const ITEM_COLUMNS = ['job_id', 'idx', 'email', 'row', 'duplicate_of'];

/** A job's addresses, their upload rows (JSON text each) and, per address, the index of its first occurrence or -1. */
export interface JobItems {
  emails: string[];
  rows?: string[];
  duplicateOf: Int32Array;
}

function itemRows(jobId: string, items: JobItems, from = 0, to = items.emails.length): unknown[][] {
  const { emails, rows, duplicateOf } = items;
  const out: unknown[][] = [];
  for (let idx = from; idx < to; idx++) {
    const first = duplicateOf[idx]!;
    out.push([jobId, idx, emails[idx], rows ? (rows[idx] ?? '[]') : null, first >= 0 ? first : null]);
  }
  return out;
}

// Items are turned into rows a slice at a time, so a million-address job never holds a million
// row arrays at once.
const ITEM_SLICE = 10_000;
// about 10 ms of synchronous writing each on SQLite (lib/jobs/intake/slices.ts)
const SQLITE_ITEM_SLICE = 2_000;

export async function insertJobItems(tx: Tx, dialect: Database['dialect'], jobId: string, items: JobItems) {
  await insertRows(tx, dialect, 'job_items', ITEM_COLUMNS, itemRows(jobId, items));
}

/** A job's row as submission writes it, for an instant and a queued list alike (submit.ts newJob). */
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

// The SQLite fast path writes the row by column name: one entry per field of NewJob (the type checks it).
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
 * Writes a queued job with its items and chunks; nothing half-written is ever visible. PostgreSQL
 * goes through Prisma in one transaction (its statements wait on the network, not on this event
 * loop). On SQLite the direct connection writes synchronously, so a million items in one
 * transaction would hold the server for seconds: items go in slices of their own transactions,
 * each taking its turn in the write queue, and the job row and its chunks last, in one: until then
 * no claim, status or list sees the job (chunks are claimed through their job's row; the one-machine
 * queue claims `job_chunks` itself, lib/jobs/queue/table.ts, so it has nothing to enqueue). Items of a
 * submission that fails before that are deleted; a crash leaves them unreferenced.
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
  const answered = new Set(reused.map((row) => row.idx));
  const now = Date.now();
  const chunks = chunkRows(job.id, emails.length, chunkSize, answered.size ? (idx) => !answered.has(idx) : undefined);
  const { bulk, writeLock } = database;
  if (bulk && writeLock) {
    try {
      for (let from = 0; from < emails.length; from += SQLITE_ITEM_SLICE) {
        const to = Math.min(emails.length, from + SQLITE_ITEM_SLICE);
        await writeLock.run(() => bulk.transaction(() => sqliteInsert(bulk, 'job_items', ITEM_COLUMNS, itemRows(job.id, items, from, to)))());
        await turn();
      }
      // results reused from the account's fresh ones (lib/jobs/intake/reuse.ts), stored before any worker can see the job
      for (let from = 0; from < reused.length; from += COPY_BATCH) {
        const params = copyParams('sqlite', job.id, now, reused.slice(from, from + COPY_BATCH), emails);
        await writeLock.run(() => bulk.prepare(copyReusedSql('sqlite')).run(...params));
        await turn();
      }
      await writeLock.run(() =>
        bulk.transaction(() => {
          sqliteInsert(
            bulk,
            'jobs',
            [...JOB_FIELDS.map((field) => JOB_COLUMNS[field]), 'status', 'created_at'],
            [[...JOB_FIELDS.map((field) => job[field]), 'queued', Date.now()]],
          );
          sqliteInsert(bulk, 'job_chunks', CHUNK_COLUMNS, chunks);
          // the upload's audit row commits with the job row (lib/audit/record.ts)
          if (audit) sqliteInsert(bulk, 'audit_events', AUDIT_COLUMNS, [auditValues(audit)]);
        })(),
      );
    } catch (error) {
      await writeLock.run(() => bulk.prepare('DELETE FROM job_items WHERE job_id = ?').run(job.id));
      if (reused.length) await writeLock.run(() => bulk.prepare('DELETE FROM verifications WHERE job_id = ?').run(job.id));
      throw error;
    }
    return;
  }
  await database.prisma.$transaction(
    async (tx) => {
      await tx.job.create({ data: { ...job, status: 'queued' } });
      for (let from = 0; from < emails.length; from += ITEM_SLICE) {
        await insertRows(tx, database.dialect, 'job_items', ITEM_COLUMNS, itemRows(job.id, items, from, Math.min(emails.length, from + ITEM_SLICE)));
      }
      for (let from = 0; from < reused.length; from += COPY_BATCH) {
        await tx.$executeRawUnsafe(
          q(database.dialect, copyReusedSql(database.dialect)),
          ...copyParams(database.dialect, job.id, now, reused.slice(from, from + COPY_BATCH), emails),
        );
      }
      await insertRows(tx, database.dialect, 'job_chunks', CHUNK_COLUMNS, chunks);
      // PostgreSQL's queue engine gets the chunks' deliveries in this same transaction (lib/jobs/queue/pgboss.ts)
      await chunkQueue(database).enqueue(tx, job, chunks.length);
      if (audit) await tx.auditEvent.create({ data: audit });
    },
    { timeout: 600_000, maxWait: 60_000 },
  );
}
