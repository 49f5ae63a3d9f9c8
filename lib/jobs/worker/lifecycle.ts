import { jobReservation, type Reservation, refundIn } from '../../accounts/quota';
import { recordAudit } from '../../audit/record';
import type { Database, Db } from '../../db/client';
import { lockJobRow } from '../../db/queries/jobs';
import { AppError } from '../../errors/app-error';
import { failpoint, pausepoint } from '../../failpoints/failpoints';
import { recordChanges } from '../../monitors/changes';
import { chargeableCount } from '../../results/chargeable';
import { type JobSummary, summarize } from '../../results/summary';
import { bulkCompletedEvent, bulkFailedEvent, enqueueEvent } from '../../webhooks/outbox';
import { chunkQueue } from '../queue';
import { type ChunkClaim, cancelChunks, completeChunk, openChunkCount, strandedJobs } from '../queue/ledger';
import { getOwnJob } from '../status/status';
import { isOpen, OPEN_STATES } from '../states';

type Tx = Pick<Db, 'job' | 'jobProgress' | 'user' | 'usageDay' | 'monitor' | '$executeRawUnsafe' | '$queryRawUnsafe'>;
type UnfinishedJob = { id: string; userId: string; sandbox: boolean } & Parameters<typeof jobReservation>[0];

/**
 * Completes a job once no chunk is open. The conditional update makes it happen once even when
 * two workers finish the last chunks together; the summary comes from the stored results and the
 * refund and `bulk.completed` event are written in the same transaction. Called by the worker in the
 * transaction that completes a chunk (`completeChunkAndFinish`) and by the sweeper (`finishStranded`).
 */
export async function finishJobIfDone(database: Database, jobId: string): Promise<boolean> {
  return database.prisma.$transaction(async (tx) => {
    await lockJobRow(tx, database.dialect, jobId);
    return finishIn(tx, database.dialect, jobId);
  });
}

async function finishIn(
  tx: Tx & Parameters<typeof enqueueEvent>[0],
  dialect: Database['dialect'],
  jobId: string,
  ahead: SummaryAhead | null = null,
): Promise<boolean> {
  if ((await openChunkCount(tx, dialect, jobId)) > 0) return false;
  const job = await tx.job.findUnique({ where: { id: jobId } });
  if (!job || !isOpen(job.status)) return false;
  const current = ahead !== null && ahead.summary.total === job.totalEmails && ahead.processed === (await processedIn(tx, jobId));
  const summary = current ? ahead.summary : await summarize(tx, dialect, jobId, job.totalEmails, job.duplicateEmails);
  const completedAt = new Date();
  failpoint('job.before-finish');
  const updated = await tx.job.updateMany({
    where: { id: jobId, status: { in: [...OPEN_STATES] } },
    data: { status: 'completed', summary: JSON.stringify(summary), completedAt },
  });
  if (updated.count !== 1) return false;
  if (!job.sandbox) await refundUnused(tx, dialect, job.userId, jobReservation(job), jobId);
  await enqueueEvent(tx, job.userId, bulkCompletedEvent(job, summary, completedAt));
  // a monitor's run: what changed since the run before (lib/monitors/changes.ts)
  if (job.monitorId && job.previousJobId) await recordChanges(tx, dialect, { ...job, monitorId: job.monitorId, previousJobId: job.previousJobId }, completedAt);
  return true;
}

/**
 * Marks the claim's chunk done and, when it was the last open one, finishes the job, in one
 * transaction: no crash can leave every chunk done and the job unfinished. 'lost' when the claim
 * no longer held the chunk (cancelled, failed, taken over): nothing else changes.
 *
 * Lock order, the same everywhere (claim, completion, hand-back: lib/jobs/queue/pgboss.ts): the job,
 * then the chunk's delivery, then the chunk. A claim fetches the delivery before it updates the
 * chunk, so the completion lets go of the delivery first too: when the lease runs out while the
 * chunk is being finished, the claim that fetched the delivery waits or skips, it never deadlocks.
 * The delivery this claim holds is its own (a claim that took the chunk over put a new one back),
 * so deleting it for a lost claim takes nothing from anyone.
 */
export async function completeChunkAndFinish(database: Database, chunk: ChunkClaim): Promise<'lost' | 'open' | 'finished'> {
  const { prisma, dialect } = database;
  const ahead = await summaryAhead(database, chunk.jobId);
  await pausepoint('chunk.summary-ahead');
  return prisma.$transaction(async (tx) => {
    await lockJobRow(tx, dialect, chunk.jobId);
    await chunkQueue(database).completed(tx, chunk);
    // SQLite: the chunk's UPDATE is the first write, so this transaction holds the write lock before it reads
    if (!(await completeChunk(tx, dialect, chunk))) return 'lost';
    await pausepoint('chunk.finishing');
    failpoint('chunk.after-complete');
    return (await finishIn(tx, dialect, chunk.jobId, ahead)) ? 'finished' : 'open';
  });
}

/** A job's summary read before the transaction that may finish it, with the progress it was read at. */
interface SummaryAhead {
  summary: JobSummary;
  processed: number;
}

/**
 * The summary of a job whose every row is answered, read outside the completion's transaction: on
 * SQLite that transaction holds the one Prisma connection every request waits on, and a million
 * results take the summary most of a second to count. Two reads by key decide (the job, its
 * progress): every other chunk's completion, and a job with rows left unanswered, skip it and are
 * counted inside, as before. Results are only added, each counted into the job's progress in the
 * transaction that stores it (lib/db/job-progress.ts): a progress equal before and after the read,
 * and again inside the completion (`finishIn`), means the summary counted every result the
 * completion would.
 * (An erasure, lib/retention/erase.ts, deletes results without a progress of its own: one that
 * falls between the reads leaves its result counted here, where the count inside would call it failed.)
 */
async function summaryAhead(database: Database, jobId: string): Promise<SummaryAhead | null> {
  const { prisma, dialect } = database;
  const job = await prisma.job.findUnique({ where: { id: jobId } });
  if (!job || !isOpen(job.status)) return null;
  const processed = await processedIn(prisma, jobId);
  if (processed < job.totalEmails) return null;
  const summary = await summarize(prisma, dialect, jobId, job.totalEmails, job.duplicateEmails);
  return (await processedIn(prisma, jobId)) === processed ? { summary, processed } : null;
}

async function processedIn(tx: Pick<Db, 'jobProgress'>, jobId: string): Promise<number> {
  return (await tx.jobProgress.findUnique({ where: { jobId } }))?.processed ?? 0;
}

/** The sweeper: finishes jobs whose chunks are all done but whose finishing was lost. */
export async function finishStranded(database: Database): Promise<number> {
  let finished = 0;
  for (const jobId of await strandedJobs(database)) if (await finishJobIfDone(database, jobId)) finished++;
  return finished;
}

/**
 * Ends a queued or processing job as `failed` or `cancelled`, in the caller's transaction: its
 * open chunks are cancelled and what its results did not use of the reservation is refunded.
 * False when the job had already ended (the conditional update lets only one caller do it).
 */
export async function endUnfinished(
  tx: Tx,
  dialect: Database['dialect'],
  job: UnfinishedJob,
  data: { status: 'failed' | 'cancelled'; error?: string; summary?: string },
): Promise<boolean> {
  const updated = await tx.job.updateMany({
    where: { id: job.id, status: { in: [...OPEN_STATES] } },
    data: { ...data, completedAt: new Date() },
  });
  if (updated.count !== 1) return false;
  await cancelChunks(tx, dialect, job.id);
  if (!job.sandbox) await refundUnused(tx, dialect, job.userId, jobReservation(job), job.id);
  return true;
}

/**
 * Gives a job up (a chunk that no worker could finish): `failed` with the reason, a summary of the
 * results it has, and `bulk.failed` written in the same transaction.
 */
export async function failJob(database: Database, jobId: string, error: string): Promise<boolean> {
  const { prisma, dialect } = database;
  return prisma.$transaction(async (tx) => {
    const job = await tx.job.findUnique({ where: { id: jobId } });
    if (!job) return false;
    const summary = await summarize(tx, dialect, jobId, job.totalEmails, job.duplicateEmails);
    if (!(await endUnfinished(tx, dialect, job, { status: 'failed', error, summary: JSON.stringify(summary) }))) return false;
    await enqueueEvent(tx, job.userId, bulkFailedEvent(job, summary, error, new Date()));
    return true;
  });
}

/** The caller's cancel (a job of its mode): a job that has already ended is a 409. */
export async function cancelJob(database: Database, userId: string, jobId: string, sandbox: boolean) {
  const job = await getOwnJob(database, userId, jobId, sandbox);
  const cancelled = await database.prisma.$transaction(async (tx) => {
    if (!(await endUnfinished(tx, database.dialect, job, { status: 'cancelled' }))) return false;
    await recordAudit(tx, userId, 'list.cancelled', { type: 'list', id: job.id, label: job.uploadFilename }, job.sandbox ? { sandbox: true } : undefined);
    return true;
  });
  if (!cancelled) throw new AppError('conflict', `Job ${jobId} is already ${job.status} and cannot be cancelled.`);
  return { jobId, status: 'cancelled' };
}

export async function markProcessing({ prisma }: Database, jobId: string): Promise<void> {
  await prisma.job.updateMany({ where: { id: jobId, status: 'queued' }, data: { status: 'processing', startedAt: new Date() } });
}

/**
 * Gives back what the job's results did not use. The reservation covered each distinct valid
 * mailbox once (duplicates are never verified), so what is unused is the reservation less the
 * charged results, whatever the list's duplicates.
 */
async function refundUnused(tx: Tx, dialect: Database['dialect'], userId: string, reservation: Reservation, jobId: string): Promise<void> {
  const settled = await refundIn(tx, dialect, userId, reservation, reservation.free + reservation.credits - (await chargeableCount(tx, dialect, jobId)));
  // Never ignored: the job's end rolls back and is tried again (the chunk's next claim, the stranded
  // sweep). A job's reservation is settled only here, once the job ends (the sweeper leaves it alone
  // once the job row exists, and its owner beats until then: lib/accounts/sweeper.ts), so this
  // means the books are wrong, which `npm run audit-credits` names.
  if (!settled) throw new Error(`job ${jobId}: its reservation was settled before the job ended; the job's end is rolled back and tried again`);
}
