import type { Database } from '../db/client';
import { bulkCompletedEvent, enqueueEvent } from '../webhooks/outbox';
import { jobReservation, refundIn } from '../quota';
import { chargeableCount, openChunkCount, summarize } from './store';

/**
 * Completes a job once no chunk is open. The conditional update makes it happen once even when
 * two workers finish the last chunks together; the summary comes from the stored results and the
 * `bulk.completed` event is written in the same transaction.
 */
export async function finishJobIfDone(database: Database, jobId: string): Promise<boolean> {
  if ((await openChunkCount(database, jobId)) > 0) return false;
  const { prisma, dialect } = database;
  return prisma.$transaction(async (tx) => {
    const job = await tx.job.findUnique({ where: { id: jobId } });
    if (!job || (job.status !== 'queued' && job.status !== 'processing')) return false;
    const summary = await summarize(tx, dialect, jobId, job.totalEmails);
    const completedAt = new Date();
    const updated = await tx.job.updateMany({
      where: { id: jobId, status: { in: ['queued', 'processing'] } },
      data: { status: 'completed', summary: JSON.stringify(summary), completedAt },
    });
    if (updated.count !== 1) return false;
    if (!job.sandbox) await refundIn(tx, job.userId, jobReservation(job), job.validEmails - (await chargeableCount(tx, dialect, jobId)));
    await enqueueEvent(tx, job.userId, bulkCompletedEvent(job, summary, completedAt));
    return true;
  });
}

export async function markProcessing({ prisma }: Database, jobId: string): Promise<void> {
  await prisma.job.updateMany({ where: { id: jobId, status: 'queued' }, data: { status: 'processing', startedAt: new Date() } });
}
