import type { Database } from '../db/client';
import { notFound, AppError } from '../errors';
import { isIdShaped } from '../ids';
import { bulkItem, type Bucket } from '../verifications/rows';
import { countResults } from '../verifications/summary';
import { endUnfinished } from './finish';
import { uploadInfo } from './formats';
import { completedProviderCounts, waitingFor } from './insights';
import { processedCount, resultsPage } from './store';

/** A job of this caller in this mode; anyone else's (or the other mode's) is a 404. */
export async function getOwnJob({ prisma }: Database, userId: string, jobId: string) {
  if (!isIdShaped(jobId)) throw notFound();
  const job = await prisma.job.findUnique({ where: { id: jobId } });
  if (!job || job.userId !== userId) throw notFound();
  return job;
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
    success: true,
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
  return { success: true, data, next_cursor: jobs.length > limit && last ? encodeCursor({ t: last.createdAt.getTime(), id: last.id }) : null };
}

export async function cancelJob(database: Database, userId: string, jobId: string) {
  const job = await getOwnJob(database, userId, jobId);
  const cancelled = await database.prisma.$transaction((tx) => endUnfinished(tx, database.dialect, job, { status: 'cancelled' }));
  if (!cancelled) throw new AppError('conflict', `Job ${jobId} is already ${job.status} and cannot be cancelled.`);
  return { success: true, job_id: jobId, status: 'cancelled' };
}
