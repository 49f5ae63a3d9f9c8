import type { Database } from '../db/client';
import { buildEvent, downloadUrl, enqueueEvent } from '../webhooks/outbox';
import { DAY_MS } from '../usage/days';
import { ENDED_STATUSES, WARN_DAYS } from './policy';

/**
 * `list.expiring` for the account's ended lists within a day, then within a week, of their deletion;
 * each once: claimed by a conditional UPDATE of `jobs.expiry_notice` in the transaction that queues the event.
 */
export async function warnExpiring({ prisma }: Database, userId: string, cutoff: number, windowMs: number, kept: string[]): Promise<number> {
  let sent = 0;
  for (const daysLeft of [...WARN_DAYS].sort((a, b) => a - b)) {
    const notYet = { OR: [{ expiryNotice: null }, { expiryNotice: { gt: daysLeft } }] };
    const jobs = await prisma.job.findMany({
      where: {
        userId,
        retentionHold: false,
        id: { notIn: kept },
        status: { in: ENDED_STATUSES },
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
            jobId: job.id,
            filename: job.uploadFilename,
            totalEmails: job.totalEmails,
            createdAt: job.createdAt,
            expiresAt: new Date(deletedAt),
            daysLeft,
            downloadUrl: downloadUrl(job.id),
          }),
        );
        return true;
      });
      if (claimed) sent++;
    }
  }
  return sent;
}
