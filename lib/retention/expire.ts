import type { Database } from '../db/client';
import { q } from '../db/sql';
import { failpoint } from '../failpoints/failpoints';
import { monitoredJobsToKeep } from '../monitors/keep';
import { ENDED_STATUSES } from './policy';
import { deleteVerifications } from './usage-kept';
import { warnExpiring } from './warn-expiring';

/**
 * One account's part of a retention pass (sweep.ts): its ended lists warned of, then what has passed
 * its window deleted in batches: lists, single-check history, stored idempotent answers, webhook
 * deliveries. A monitored list and its latest run, and a job with `retention_hold`, stay.
 */

/** One batch of a pass: sweep.ts runs it, paces it and renews the pass's lease. */
export type Step = <T>(work: () => Promise<T>) => Promise<T>;

/** What accountPass removed and warned of, added to the pass's report (RetentionReport, sweep.ts). */
export interface AccountRemoved {
  warned: number;
  jobs: number;
  results: number;
  list_rows: number;
  history: number;
  idempotency_answers: number;
  webhook_deliveries: number;
}

/** The account's pass: its warnings, then everything older than `windowMs` (cut off at `now`). */
export async function accountPass(
  database: Database,
  userId: string,
  now: number,
  windowMs: number,
  batch: number,
  step: Step,
  report: AccountRemoved,
): Promise<void> {
  const cutoff = now - windowMs;
  const { prisma, dialect } = database;
  // a monitored list and its latest run stay: the next run starts from them (lib/monitors)
  const kept = [...(await monitoredJobsToKeep(database, userId))];
  report.warned += await warnExpiring(database, userId, cutoff, windowMs, kept);
  for (;;) {
    const expired = await prisma.job.findMany({
      where: { userId, retentionHold: false, id: { notIn: kept }, status: { in: ENDED_STATUSES }, createdAt: { lt: new Date(cutoff) } },
      select: { id: true },
      orderBy: { createdAt: 'asc' },
      take: 10,
    });
    if (expired.length === 0) break;
    for (const job of expired) {
      await deleteJob(database, job.id, batch, step, report);
      report.jobs++;
    }
  }
  for (let after = -1; ; ) {
    const { count, lastId } = await step(() =>
      deleteVerifications(database, 'user_id = ? AND job_id IS NULL AND created_at < ? AND id > ?', [userId, cutoff, after], batch, true),
    );
    report.history += count;
    after = lastId;
    if (count < batch) break;
  }
  report.idempotency_answers += await prisma.$executeRawUnsafe(
    q(dialect, `DELETE FROM idempotency_keys WHERE user_id = ? AND created_at < ? AND state <> 'running'`),
    userId,
    cutoff,
  );
  for (;;) {
    const ids = (
      await prisma.webhookDelivery.findMany({
        where: { webhook: { userId }, createdAt: { lt: new Date(cutoff) } },
        select: { id: true },
        take: batch,
      })
    ).map((row) => row.id);
    if (ids.length === 0) break;
    report.webhook_deliveries += await step(() => deleteDeliveries(database, ids));
  }
}

/** Deletes deliveries and their attempts (the attempts first: not left to the foreign key's cascade). */
export async function deleteDeliveries({ prisma }: Database, ids: string[]): Promise<number> {
  return prisma.$transaction(async (tx) => {
    await tx.webhookAttempt.deleteMany({ where: { deliveryId: { in: ids } } });
    return (await tx.webhookDelivery.deleteMany({ where: { id: { in: ids } } })).count;
  });
}

/**
 * A list past its retention: results first (their counts kept), then its uploaded rows, then the rest
 * with the job row. Both tables are walked by ranges of `idx` on their (job_id, idx) index, from the
 * lowest left: each batch is an index range, however many rows before it are deleted and not yet
 * vacuumed (a `LIMIT` from the start would step over all of those each time: quadratic on PostgreSQL).
 */
async function deleteJob(database: Database, jobId: string, batch: number, step: Step, report: AccountRemoved): Promise<void> {
  const { prisma, dialect } = database;
  const span = async (table: string) =>
    (
      await prisma.$queryRawUnsafe<{ lo: number | bigint | null; hi: number | bigint | null }[]>(
        q(dialect, `SELECT MIN(idx) AS lo, MAX(idx) AS hi FROM ${table} WHERE job_id = ?`),
        jobId,
      )
    )[0];
  const results = await span('verifications');
  for (let from = Number(results?.lo ?? 0); results?.hi != null && from <= Number(results.hi); from += batch) {
    const { count } = await step(() => deleteVerifications(database, 'job_id = ? AND idx >= ? AND idx < ?', [jobId, from, from + batch], batch));
    failpoint('retention.list-batch');
    report.results += count;
  }
  const items = await span('job_items');
  for (let from = Number(items?.lo ?? 0); items?.hi != null && from <= Number(items.hi); from += batch) {
    report.list_rows += await step(() =>
      prisma.$executeRawUnsafe(q(dialect, 'DELETE FROM job_items WHERE job_id = ? AND idx >= ? AND idx < ?'), jobId, from, from + batch),
    );
  }
  // a result without an index (none is written so; kept from being orphaned all the same)
  for (;;) if ((await deleteVerifications(database, 'job_id = ? AND idx IS NULL', [jobId], batch)).count < batch) break;
  await prisma.$transaction(async (tx) => {
    await tx.$executeRawUnsafe(q(dialect, 'DELETE FROM job_chunks WHERE job_id = ?'), jobId);
    await tx.$executeRawUnsafe(q(dialect, 'DELETE FROM job_progress WHERE job_id = ?'), jobId);
    await tx.$executeRawUnsafe(q(dialect, 'DELETE FROM jobs WHERE id = ?'), jobId);
  });
}
