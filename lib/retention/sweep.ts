import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Database } from '../db/client';
import { env } from '../config/env';
import { q } from '../db/sql';
import { failpoint } from '../failpoints/failpoints';
import { buildEvent, downloadUrl, enqueueEvent } from '../webhooks/outbox';
import { releaseLease, takeLease } from './lease';
import { DAY_MS } from '../usage/days';
import { ENDED_STATUSES, WARN_DAYS, effectiveDays } from './policy';
import { deleteVerifications } from './usage-kept';
import { monitoredJobsToKeep } from '../monitors/keep';

/**
 * Retention (docs/retention.md): deletes what has passed each account's retention and warns of it.
 *
 * One pass, per account with a retention: `list.expiring` for ended lists 7 and 1 days before
 * (each claimed by a conditional UPDATE of `jobs.expiry_notice` in the transaction that queues the
 * event, so it is sent once), then the expired lists (results, uploaded rows, chunks, progress, the
 * job row last), single-check history, stored idempotent answers and webhook deliveries older than
 * the window. Everything goes in batches of EV_RETENTION_BATCH rows, each its own short transaction
 * followed by a pause as long as the batch took, so a big list never holds the database from other
 * accounts' work; the state is only the rows themselves, so a pass cut short anywhere (a restart)
 * is finished by the next one. A monitored list and its latest run (monitoredJobsToKeep,
 * lib/monitors/keep.ts), and a job with `retention_hold`, are never expired or warned of. The
 * credit ledger and usage counts are kept (lib/retention/usage-kept.ts).
 *
 * Workers run passes every EV_RETENTION_SWEEP_MS under the `retention` lease (lease.ts): one worker
 * of the database at a time, taken over when it dies.
 */

const ENDED = ENDED_STATUSES;
const LEASE = 'retention';
const RENEW_EVERY_MS = 5000;

export interface RetentionOptions {
  /** the clock the windows are measured on (tests move it); leases keep the real one */
  now?: number;
  batch?: number;
  /** pause after each batch as long as it took (default true) */
  pace?: boolean;
  /** renews the pass's lease; false: another worker has it, stop */
  renew?: () => Promise<boolean>;
}

export interface RetentionReport {
  accounts: number;
  warned: number;
  jobs: number;
  results: number;
  list_rows: number;
  history: number;
  idempotency_answers: number;
  webhook_deliveries: number;
  /** audit log rows past EV_AUDIT_RETENTION_DAYS */
  audit_events: number;
}

class LeaseLost extends Error {}

export async function retentionPass(database: Database, options: RetentionOptions = {}): Promise<RetentionReport> {
  const now = options.now ?? Date.now();
  const batch = options.batch ?? env().EV_RETENTION_BATCH;
  const report: RetentionReport = {
    accounts: 0,
    warned: 0,
    jobs: 0,
    results: 0,
    list_rows: 0,
    history: 0,
    idempotency_answers: 0,
    webhook_deliveries: 0,
    audit_events: 0,
  };
  /** one batch: run it, then let the others have the database as long as it held it; the lease renewed every few seconds */
  let renewedAt = performance.now();
  const step = async <T>(work: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    const result = await work();
    if (options.pace ?? true) await sleep(Math.min(1000, performance.now() - started));
    if (options.renew && performance.now() - renewedAt > RENEW_EVERY_MS) {
      if (!(await options.renew())) throw new LeaseLost();
      renewedAt = performance.now();
    }
    return result;
  };
  const { prisma } = database;
  const everyAccount = env().EV_RETENTION_DAYS > 0;
  let cursor: string | undefined;
  try {
    for (;;) {
      const users = await prisma.user.findMany({
        where: everyAccount ? {} : { retentionDays: { not: null } },
        select: { id: true, retentionDays: true },
        orderBy: { id: 'asc' },
        take: 500,
        ...(cursor ? { cursor: { id: cursor }, skip: 1 } : {}),
      });
      if (users.length === 0) break;
      cursor = users[users.length - 1]!.id;
      for (const user of users) {
        const days = effectiveDays(user.retentionDays);
        if (days === null) continue;
        report.accounts++;
        await accountPass(database, user.id, now, days * DAY_MS, batch, step, report);
      }
    }
    await auditPass(database, now, batch, step, report);
  } catch (error) {
    if (!(error instanceof LeaseLost)) throw error;
  }
  return report;
}

/** The audit log's own window (EV_AUDIT_RETENTION_DAYS, 0: kept): the only deletion of its rows (lib/audit/record.ts). */
async function auditPass({ prisma }: Database, now: number, batch: number, step: Step, report: RetentionReport): Promise<void> {
  const days = env().EV_AUDIT_RETENTION_DAYS;
  if (days <= 0) return;
  const before = new Date(now - days * DAY_MS);
  for (;;) {
    const ids = (await prisma.auditEvent.findMany({ where: { at: { lt: before } }, select: { id: true }, take: batch })).map((row) => row.id);
    if (ids.length === 0) break;
    report.audit_events += await step(async () => (await prisma.auditEvent.deleteMany({ where: { id: { in: ids } } })).count);
    if (ids.length < batch) break;
  }
}

type Step = <T>(work: () => Promise<T>) => Promise<T>;

async function accountPass(
  database: Database,
  userId: string,
  now: number,
  windowMs: number,
  batch: number,
  step: Step,
  report: RetentionReport,
): Promise<void> {
  const cutoff = now - windowMs;
  const { prisma, dialect } = database;
  // a monitored list and its latest run stay: the next run starts from them (lib/monitors)
  const kept = [...(await monitoredJobsToKeep(database, userId))];
  report.warned += await warnExpiring(database, userId, cutoff, windowMs, kept);
  for (;;) {
    const expired = await prisma.job.findMany({
      where: { userId, retentionHold: false, id: { notIn: kept }, status: { in: ENDED }, createdAt: { lt: new Date(cutoff) } },
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
async function deleteJob(database: Database, jobId: string, batch: number, step: Step, report: RetentionReport): Promise<void> {
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

/** `list.expiring` for the account's ended lists within a day, then within a week, of their deletion; each once. */
async function warnExpiring({ prisma }: Database, userId: string, cutoff: number, windowMs: number, kept: string[]): Promise<number> {
  let sent = 0;
  for (const daysLeft of [...WARN_DAYS].sort((a, b) => a - b)) {
    const notYet = { OR: [{ expiryNotice: null }, { expiryNotice: { gt: daysLeft } }] };
    const jobs = await prisma.job.findMany({
      where: {
        userId,
        retentionHold: false,
        id: { notIn: kept },
        status: { in: ENDED },
        createdAt: { gte: new Date(cutoff), lt: new Date(cutoff + daysLeft * DAY_MS) },
        ...notYet,
      },
      select: { id: true, sandbox: true, uploadFilename: true, totalEmails: true, createdAt: true },
      take: 100,
    });
    for (const job of jobs) {
      const claimed = await prisma.$transaction(async (tx) => {
        const { count } = await tx.job.updateMany({ where: { id: job.id, ...notYet }, data: { expiryNotice: daysLeft } });
        if (count !== 1) return false;
        const deletedAt = job.createdAt.getTime() + windowMs;
        await enqueueEvent(
          tx,
          userId,
          buildEvent('list.expiring', job.sandbox, {
            job_id: job.id,
            filename: job.uploadFilename,
            total_emails: job.totalEmails,
            created_at: job.createdAt.toISOString(),
            expires_at: new Date(deletedAt).toISOString(),
            days_left: daysLeft,
            download_url: downloadUrl(job.id),
          }),
        );
        return true;
      });
      if (claimed) sent++;
    }
  }
  return sent;
}

/**
 * Runs a pass every EV_RETENTION_SWEEP_MS in this process (each worker calls it; the lease lets one
 * at a time work) until the returned function is called, which waits for a pass under way to stop
 * at its next batch.
 */
export function startRetention(database: Database, holder = `retention-${randomUUID()}`): () => Promise<void> {
  const every = env().EV_RETENTION_SWEEP_MS;
  // renewed every RENEW_EVERY_MS while a pass runs; a holder that died is replaced after it runs out
  const leaseMs = Math.max(30_000, every * 2);
  let stopped = false;
  let running: Promise<void> | null = null;
  const tick = () => {
    if (running || stopped) return;
    running = (async () => {
      if (!(await takeLease(database, LEASE, holder, leaseMs))) return;
      try {
        const report = await retentionPass(database, { renew: async () => !stopped && takeLease(database, LEASE, holder, leaseMs) });
        const removed = report.jobs + report.history + report.idempotency_answers + report.webhook_deliveries;
        if (removed > 0 || report.warned > 0) console.log(`[retention] ${JSON.stringify(report)}`);
      } finally {
        await releaseLease(database, LEASE, holder);
      }
    })()
      .catch((error: unknown) => console.error(`[retention] pass failed: ${error}`))
      .finally(() => {
        running = null;
      });
  };
  const timer = setInterval(tick, every);
  timer.unref();
  setTimeout(tick, Math.min(every, 1000)).unref();
  return async () => {
    stopped = true;
    clearInterval(timer);
    await running;
  };
}
