import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Database } from '../db/client';
import { env } from '../config/env';
import { DAY_MS } from '../usage/days';
import { accountPass, type AccountRemoved, type Step } from './expire';
import { releaseLease, takeLease } from './lease';
import { effectiveDays } from './policy';

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
 * credit ledger and usage counts are kept (lib/retention/usage-kept.ts). One account's part is
 * expire.ts (its warnings: warn-expiring.ts); this file walks the accounts and the audit log.
 *
 * Workers run passes every EV_RETENTION_SWEEP_MS under the `retention` lease (lease.ts): one worker
 * of the database at a time, taken over when it dies.
 */

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

export interface RetentionReport extends AccountRemoved {
  accounts: number;
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
