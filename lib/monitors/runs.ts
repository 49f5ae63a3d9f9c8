import { type Reservation, refund, reserve } from '../accounts/quota';
import { type Refusal, refusalOf } from '../accounts/quota-events';
import { env } from '../config/env';
import type { Database } from '../db/client';
import { newId } from '../db/ids';
import { insertRows, q } from '../db/sql';
import { AppError } from '../errors/app-error';
import { failpoint } from '../failpoints/failpoints';
import { CHUNK_COLUMNS, chunkRows, chunkSize } from '../jobs/intake/chunk-rows';
import { chunkQueue } from '../jobs/queue';
import { DAY_MS } from '../usage/days';
import { buildEvent, enqueueEvent } from '../webhooks/outbox';

/**
 * A monitor's runs (docs/lists.md, "Monitors"). Every worker process looks for due monitors on its
 * own timer (startMonitorScheduler, both databases); a run starts exactly once per period however
 * many workers look and however often they restart, because the transaction that writes the run's
 * job also moves the monitor to its next period with a conditional UPDATE naming the period it saw
 * (`periods`). Before that, a short lease on the monitor lets one worker reserve the run's credits
 * while the others pass it by; a worker that dies holding it leaves the period due again when the
 * lease runs out (its reservation, with no job, is given back by lib/accounts/sweeper.ts).
 * A run is a normal job: its items are the latest run's (or the list's), it is charged like any list,
 * and never answered from reused results. A run that cannot be paid skips the period and says so with
 * `quota.exceeded` (data.monitor_id set).
 */

/** how long a worker may hold a due monitor while it reserves and writes its run: a chunk's lease (EV_LEASE_MS) */
const holdMs = () => env().EV_LEASE_MS;
/** due monitors taken per look */
const BATCH = 20;

type MonitorRow = NonNullable<Awaited<ReturnType<Database['prisma']['monitor']['findUnique']>>>;

/** The next period's due time: one interval after this one's, or, when periods were missed (all workers down), one interval from now. */
export function nextDue(monitor: Pick<MonitorRow, 'nextRunAt' | 'intervalDays'>, now: number): number {
  const next = Number(monitor.nextRunAt) + monitor.intervalDays * DAY_MS;
  return next > now ? next : now + monitor.intervalDays * DAY_MS;
}

export type RunOutcome = 'started' | 'skipped' | 'lost';

/** Starts (or skips) every due monitor's run; `now` is the clock (tests drive it). */
export async function runDueMonitors(database: Database, now = Date.now()): Promise<Record<RunOutcome, number>> {
  const counts: Record<RunOutcome, number> = { started: 0, skipped: 0, lost: 0 };
  const due = await database.prisma.monitor.findMany({
    where: { paused: false, nextRunAt: { lte: BigInt(now) }, leaseUntil: { lt: BigInt(now) } },
    orderBy: { nextRunAt: 'asc' },
    take: BATCH,
  });
  for (const monitor of due) counts[await startRun(database, monitor, now)]++;
  return counts;
}

/**
 * One due monitor: hold it, reserve the run's credits, then write the job and move the monitor to
 * its next period in one transaction. 'lost' when another worker had it, or its period had moved.
 */
export async function startRun(database: Database, monitor: MonitorRow, now: number): Promise<RunOutcome> {
  const { prisma, dialect } = database;
  const held = await prisma.monitor.updateMany({
    where: { id: monitor.id, periods: monitor.periods, paused: false, nextRunAt: { lte: BigInt(now) }, leaseUntil: { lt: BigInt(now) } },
    data: { leaseUntil: BigInt(now + holdMs()) },
  });
  if (held.count !== 1) return 'lost';
  failpoint('monitor.after-hold');
  const source = await prisma.job.findUnique({ where: { id: monitor.latestJobId ?? monitor.listId } });
  if (!source || source.userId !== monitor.userId) return (await skipPeriod(database, monitor, now, 'list_gone')) ? 'skipped' : 'lost';
  const jobId = newId('job');
  // each distinct valid mailbox is verified (and reserved) once, as at submission
  const toVerify = source.validEmails - source.duplicateEmails;
  let reservation: Reservation | null = null;
  if (!source.sandbox) {
    try {
      reservation = await reserve(database, monitor.userId, toVerify, jobId, { quiet: true });
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'insufficient_credits')) throw error;
      return (await skipPeriod(database, monitor, now, 'insufficient_credits', error.extra as unknown as Refusal)) ? 'skipped' : 'lost';
    }
  }
  failpoint('monitor.before-run');
  const chunks = chunkRows(jobId, source.totalEmails, chunkSize(source.sandbox));
  let started = false;
  try {
    started = await prisma.$transaction(
      async (tx) => {
        const claimed = await tx.monitor.updateMany({
          where: { id: monitor.id, periods: monitor.periods, paused: false },
          data: { periods: { increment: 1 }, nextRunAt: BigInt(nextDue(monitor, now)), leaseUntil: 0n, latestJobId: jobId },
        });
        if (claimed.count !== 1) return false;
        await tx.job.create({
          data: {
            id: jobId,
            userId: source.userId,
            sandbox: source.sandbox,
            status: 'queued',
            totalEmails: source.totalEmails,
            validEmails: source.validEmails,
            invalidEmails: source.invalidEmails,
            duplicateEmails: source.duplicateEmails,
            uploadBytes: source.uploadBytes,
            uploadHeader: source.uploadHeader,
            uploadFilename: source.uploadFilename,
            uploadDelimiter: source.uploadDelimiter,
            uploadBom: source.uploadBom,
            uploadNewline: source.uploadNewline,
            uploadSheet: source.uploadSheet,
            reservedDay: reservation?.day ?? null,
            reservedFree: reservation?.free ?? 0,
            reservedCredits: reservation?.credits ?? 0,
            monitorId: monitor.id,
            previousJobId: source.id,
            createdAt: new Date(now),
          },
        });
        await tx.$executeRawUnsafe(
          q(dialect, 'INSERT INTO job_items (job_id, idx, email, row, duplicate_of) SELECT ?, idx, email, row, duplicate_of FROM job_items WHERE job_id = ?'),
          jobId,
          source.id,
        );
        await insertRows(tx, dialect, 'job_chunks', CHUNK_COLUMNS, chunks);
        await chunkQueue(database).enqueue(tx, { id: jobId, userId: source.userId, sandbox: source.sandbox }, chunks.length);
        return true;
      },
      { timeout: 600_000, maxWait: 60_000 },
    );
  } finally {
    if (!started && reservation) await refund(database, monitor.userId, reservation, toVerify);
  }
  return started ? 'started' : 'lost';
}

/**
 * Moves the monitor past a period it could not run (no credits, the list gone), once: the same
 * conditional update as a run's. No credits: `quota.exceeded` names the monitor and its list.
 */
async function skipPeriod(database: Database, monitor: MonitorRow, now: number, reason: string, refused?: Refusal): Promise<boolean> {
  return database.prisma.$transaction(async (tx) => {
    const claimed = await tx.monitor.updateMany({
      where: { id: monitor.id, periods: monitor.periods },
      data: { periods: { increment: 1 }, nextRunAt: BigInt(nextDue(monitor, now)), leaseUntil: 0n, lastSkippedAt: BigInt(now), lastSkipReason: reason },
    });
    if (claimed.count !== 1) return false;
    if (refused) {
      await enqueueEvent(
        tx,
        monitor.userId,
        buildEvent('quota.exceeded', false, {
          ...refusalOf(refused),
          refusedAt: new Date(now),
          monitorId: monitor.id,
          listId: monitor.listId,
        }),
      );
    }
    return true;
  });
}

/** Looks for due monitors every `everyMs` until the returned function is called (lib/jobs/worker/embedded.ts). */
export function startMonitorScheduler(database: Database, everyMs: number, clock: () => number = Date.now): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    runDueMonitors(database, clock())
      .then((counts) => {
        if (counts.started || counts.skipped) console.log(`[monitors] started ${counts.started} run(s), skipped ${counts.skipped}`);
      })
      .catch((error: unknown) => console.error('[monitors] look for due runs failed', error))
      .finally(() => {
        running = false;
      });
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
