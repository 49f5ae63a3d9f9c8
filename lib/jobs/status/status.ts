import type { Database } from '../../db/client';
import { isIdShaped } from '../../db/ids';
import { selectRows } from '../../db/sql';
import { notFound } from '../../errors/app-error';
import { type Bucket, bucketCondition, bulkItem, type StoredVerification } from '../../results/rows';
import type { JobSummary } from '../../results/summary';
import { completedProviderCounts, waitingFor } from './insights';
import { isOpen } from '../states';

/**
 * A job of this caller in this mode; anyone else's, or the other mode's, is a 404: a sandbox key
 * (never rate-limited) must not poll, download or cancel production work, nor the reverse.
 */
export async function getOwnJob({ prisma }: Database, userId: string, jobId: string, sandbox: boolean) {
  if (!isIdShaped(jobId)) throw notFound();
  const job = await prisma.job.findUnique({ where: { id: jobId } });
  if (!job || job.userId !== userId || job.sandbox !== sandbox) throw notFound();
  return job;
}

/**
 * Rows answered so far, duplicates included: the `job_progress` row counted in the transaction
 * that stores results (lib/db/job-progress.ts), so a poll reads one row whatever the job's size,
 * duplicates or chunks.
 */
export async function processedCount({ prisma }: Database, jobId: string): Promise<number> {
  const progress = await prisma.jobProgress.findUnique({ where: { jobId } });
  return progress?.processed ?? 0;
}

/** The counters of a page of jobs, in one query: those that have not completed need them. */
async function processedCounts({ prisma }: Database, jobIds: string[]): Promise<Map<string, number>> {
  if (jobIds.length === 0) return new Map();
  const rows = await prisma.jobProgress.findMany({ where: { jobId: { in: jobIds } } });
  return new Map(rows.map((row) => [row.jobId, row.processed]));
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

/**
 * How many stored results a completed job has, in all or in one bucket: its summary partitions them
 * by the same statuses as bucketCondition (lib/results/rows.ts), so no poll counts them again.
 */
function resultsTotal(summary: JobSummary, bucket?: Bucket): number {
  if (bucket) return summary[bucket] ?? 0;
  return summary.deliverable + summary.undeliverable + summary.risky + summary.unknown;
}

/** The uploaded file's name, kept beside its header on the job. */

/**
 * Rows answered so far, the same for the status, the list and the dashboard. A completed job's
 * comes from its summary (its failed rows were never answered); a running, failed or cancelled
 * one's from its counter (`counted`).
 */
function processedOf(job: { status: string; totalEmails: number; summary: string | null }, counted: number): number {
  if (job.status === 'completed' && job.summary) return job.totalEmails - ((JSON.parse(job.summary) as { failed?: number }).failed ?? 0);
  return Math.min(counted, job.totalEmails);
}

function progressOf(status: string, processed: number, total: number): number {
  if (status === 'completed') return 100;
  return Math.min(99, total === 0 ? 0 : Math.floor((processed / total) * 100));
}

export async function jobStatus(database: Database, userId: string, jobId: string, page: { limit: number; offset: number; bucket?: Bucket }, sandbox: boolean) {
  const job = await getOwnJob(database, userId, jobId, sandbox);
  const processed = processedOf(job, job.status === 'completed' ? 0 : await processedCount(database, job.id));
  const base = {
    jobId: job.id,
    status: job.status,
    progress: progressOf(job.status, processed, job.totalEmails),
    processedEmails: processed,
    totalEmails: job.totalEmails,
    duplicateEmails: job.duplicateEmails,
    sandbox: job.sandbox,
    filename: job.uploadFilename,
    createdAt: job.createdAt.toISOString(),
    monitorId: job.monitorId,
    previousJobId: job.previousJobId,
    ...(job.status === 'failed' ? { error: job.error } : {}),
  };
  if (isOpen(job.status)) return { ...base, waiting: await waitingFor(database, job.id) };
  if (job.status !== 'completed') return base;
  const rows = await resultsPage(database, jobId, { afterIdx: -1, limit: page.limit, offset: page.offset, bucket: page.bucket });
  const summary = JSON.parse(job.summary ?? '{}') as JobSummary;
  return {
    ...base,
    data: {
      results: rows.map(bulkItem),
      resultsTotal: resultsTotal(summary, page.bucket),
      summary,
      providers: await completedProviderCounts(database, jobId),
      completedAt: job.completedAt!.toISOString(),
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
  const after = cursor ? { OR: [{ createdAt: { lt: new Date(cursor.t) } }, { createdAt: new Date(cursor.t), id: { lt: cursor.id } }] } : {};
  const jobs = await prisma.job.findMany({
    where: { userId, sandbox, ...after },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: limit + 1,
  });
  const page = jobs.slice(0, limit);
  const counted = await processedCounts(
    database,
    page.filter((job) => job.status !== 'completed').map((job) => job.id),
  );
  const data = page.map((job) => {
    const processed = processedOf(job, counted.get(job.id) ?? 0);
    return {
      jobId: job.id,
      status: job.status,
      sandbox: job.sandbox,
      instant: job.instant,
      totalEmails: job.totalEmails,
      validEmails: job.validEmails,
      invalidFormatEmails: job.invalidEmails,
      duplicateEmails: job.duplicateEmails,
      processedEmails: processed,
      progress: progressOf(job.status, processed, job.totalEmails),
      filename: job.uploadFilename,
      createdAt: job.createdAt.toISOString(),
      completedAt: job.completedAt?.toISOString() ?? null,
    };
  });
  const last = page[page.length - 1];
  return { data, nextCursor: jobs.length > limit && last ? encodeCursor({ t: last.createdAt.getTime(), id: last.id }) : null };
}
