import type { Database } from '../db/client';
import { selectRows } from '../db/sql';
import { notFound } from '../errors/errors';
import { isIdShaped } from '../db/ids';
import { bucketCondition, bulkItem, type Bucket, type StoredVerification } from '../verifications/rows';
import { countResults } from '../verifications/summary';
import { uploadInfo } from './formats';
import { completedProviderCounts, waitingFor } from './insights';

/** A job of this caller in this mode; anyone else's (or the other mode's) is a 404. */
export async function getOwnJob({ prisma }: Database, userId: string, jobId: string) {
  if (!isIdShaped(jobId)) throw notFound();
  const job = await prisma.job.findUnique({ where: { id: jobId } });
  if (!job || job.userId !== userId) throw notFound();
  return job;
}

/**
 * Rows answered so far. Counting a million result rows on every poll would stall the server, so
 * finished chunks count by their size and only the open chunks' ranges are counted row by row. A
 * duplicate row in an open chunk counts once its first occurrence has a result (the partial index
 * on duplicate_of keeps that count to the job's duplicates). While a job runs, a duplicate in a
 * finished chunk whose first occurrence sits in a later, still open chunk counts early; the
 * count is exact again when that chunk is done.
 */
export async function processedCount(database: Database, jobId: string): Promise<number> {
  const [done] = await selectRows<{ n: number | bigint | null }>(
    database, `SELECT SUM(end_idx - start_idx) AS n FROM job_chunks WHERE job_id = ? AND state = 'done'`, [jobId],
  );
  const [open] = await selectRows<{ n: number | bigint }>(
    database,
    `SELECT COUNT(*) AS n FROM job_chunks c JOIN verifications v ON v.job_id = c.job_id AND v.idx >= c.start_idx AND v.idx < c.end_idx
      WHERE c.job_id = ? AND c.state <> 'done'`,
    [jobId],
  );
  const [duplicates] = await selectRows<{ n: number | bigint }>(
    database,
    `SELECT COUNT(*) AS n FROM job_items i JOIN verifications v ON v.job_id = i.job_id AND v.idx = i.duplicate_of
      WHERE i.job_id = ? AND i.duplicate_of IS NOT NULL
      AND EXISTS (SELECT 1 FROM job_chunks c WHERE c.job_id = i.job_id AND c.state <> 'done' AND i.idx >= c.start_idx AND i.idx < c.end_idx)`,
    [jobId],
  );
  return Number(done?.n ?? 0) + Number(open?.n ?? 0) + Number(duplicates?.n ?? 0);
}

/** One page of a job's results in address order, optionally one verdict bucket. */
export async function resultsPage(
  database: Database,
  jobId: string,
  opts: { afterIdx: number; limit: number; offset?: number; bucket?: Bucket },
): Promise<(StoredVerification & { row: string | null })[]> {
  const filter = opts.bucket ? `AND v.${bucketCondition(opts.bucket)}` : '';
  return selectRows(
    database,
    `SELECT v.*, i.row FROM verifications v JOIN job_items i ON i.job_id = v.job_id AND i.idx = v.idx
      WHERE v.job_id = ? AND v.idx > ? ${filter} ORDER BY v.idx LIMIT ? OFFSET ?`,
    [jobId, opts.afterIdx, opts.limit, opts.offset ?? 0],
  );
}

/** The uploaded file's name, kept beside its header on the job. */
const filenameOf = (columns: string | null) => uploadInfo(columns).filename;

/**
 * Rows answered so far, the same for the status, the list and the dashboard. A completed job's
 * comes from its summary (an instant job has no chunks to count); a running, failed or cancelled
 * one's from its chunks and results.
 */
async function processedOf(database: Database, job: { id: string; status: string; totalEmails: number; summary: string | null }): Promise<number> {
  if (job.status === 'completed' && job.summary) return job.totalEmails - ((JSON.parse(job.summary) as { failed?: number }).failed ?? 0);
  return processedCount(database, job.id);
}

function progressOf(status: string, processed: number, total: number): number {
  if (status === 'completed') return 100;
  return Math.min(99, total === 0 ? 0 : Math.floor((processed / total) * 100));
}

export async function jobStatus(database: Database, userId: string, jobId: string, page: { limit: number; offset: number; bucket?: Bucket }) {
  const job = await getOwnJob(database, userId, jobId);
  const processed = await processedOf(database, job);
  const base = {
    job_id: job.id,
    status: job.status,
    progress: progressOf(job.status, processed, job.totalEmails),
    processed_emails: processed,
    total_emails: job.totalEmails,
    duplicate_emails: job.duplicateEmails,
    sandbox: job.sandbox,
    filename: filenameOf(job.columns),
    created_at: job.createdAt.toISOString(),
    ...(job.status === 'failed' ? { error: job.error } : {}),
  };
  if (job.status === 'queued' || job.status === 'processing') return { ...base, waiting: await waitingFor(database, job.id) };
  if (job.status !== 'completed') return base;
  const rows = await resultsPage(database, jobId, { afterIdx: -1, limit: page.limit, offset: page.offset, bucket: page.bucket });
  return {
    ...base,
    data: {
      results: rows.map(bulkItem),
      results_total: await countResults(database, jobId, page.bucket),
      summary: JSON.parse(job.summary ?? '{}'),
      providers: await completedProviderCounts(database, jobId),
      completed_at: job.completedAt!.toISOString(),
    },
  };
}

interface Cursor {
  t: number;
  id: string;
}

const encodeCursor = (c: Cursor) => Buffer.from(JSON.stringify(c)).toString('base64url');

export function decodeCursor(text: string): Cursor | null {
  try {
    const c = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Cursor;
    const validTime = typeof c.t === 'number' && Number.isInteger(c.t) && Math.abs(c.t) <= 8.64e15;
    return validTime && typeof c.id === 'string' && isIdShaped(c.id) ? c : null;
  } catch {
    return null;
  }
}

/** The caller's jobs in this mode, newest first. */
export async function listJobs(database: Database, userId: string, sandbox: boolean, limit: number, cursor: Cursor | null) {
  const { prisma } = database;
  const after = cursor
    ? { OR: [{ createdAt: { lt: new Date(cursor.t) } }, { createdAt: new Date(cursor.t), id: { lt: cursor.id } }] }
    : {};
  const jobs = await prisma.job.findMany({
    where: { userId, sandbox, ...after },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: limit + 1,
  });
  const page = jobs.slice(0, limit);
  const data = await Promise.all(
    page.map(async (job) => {
      const processed = await processedOf(database, job);
      return {
        job_id: job.id,
        status: job.status,
        sandbox: job.sandbox,
        instant: job.instant,
        total_emails: job.totalEmails,
        valid_emails: job.validEmails,
        invalid_format_emails: job.invalidEmails,
        duplicate_emails: job.duplicateEmails,
        processed_emails: processed,
        progress: progressOf(job.status, processed, job.totalEmails),
        filename: filenameOf(job.columns),
        created_at: job.createdAt.toISOString(),
        completed_at: job.completedAt?.toISOString() ?? null,
      };
    }),
  );
  const last = page[page.length - 1];
  return { data, next_cursor: jobs.length > limit && last ? encodeCursor({ t: last.createdAt.getTime(), id: last.id }) : null };
}
