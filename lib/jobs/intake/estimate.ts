import type { Database } from '../../db/client';
import { OPEN_STATES } from '../states';

// Before any job has finished, a conservative guess per mode (addresses per second).
const DEFAULT_RATE = { sandbox: 20_000, production: 5 };

/**
 * Addresses per second measured on the last completed jobs of this mode (their totals over their
 * run times), so `estimated_time` follows what this installation really manages.
 */
export async function measuredRate({ prisma }: Database, sandbox: boolean): Promise<number> {
  const jobs = await prisma.job.findMany({
    where: { sandbox, status: 'completed', instant: false, startedAt: { not: null } },
    orderBy: { completedAt: 'desc' },
    take: 5,
    select: { totalEmails: true, startedAt: true, completedAt: true },
  });
  let emails = 0;
  let ms = 0;
  for (const job of jobs) {
    emails += job.totalEmails;
    ms += Math.max(1, job.completedAt!.getTime() - job.startedAt!.getTime());
  }
  return emails >= 100 ? (emails / ms) * 1000 : DEFAULT_RATE[sandbox ? 'sandbox' : 'production'];
}

/** Work queued ahead of a new job, in addresses. */
export async function queuedAhead({ prisma }: Database, sandbox: boolean): Promise<number> {
  const jobs = await prisma.job.aggregate({ where: { sandbox, status: { in: [...OPEN_STATES] } }, _sum: { totalEmails: true } });
  return jobs._sum.totalEmails ?? 0;
}

export function humanDuration(seconds: number): string {
  if (seconds < 10) return 'a few seconds';
  if (seconds < 60) return `about ${Math.round(seconds / 5) * 5} seconds`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return minutes === 1 ? 'about 1 minute' : `about ${minutes} minutes`;
  const hours = Math.round(minutes / 6) / 10;
  return hours === 1 ? 'about 1 hour' : `about ${hours} hours`;
}

export async function estimateTime(database: Database, sandbox: boolean, total: number): Promise<string> {
  const [rate, ahead] = await Promise.all([measuredRate(database, sandbox), queuedAhead(database, sandbox)]);
  return humanDuration((ahead + total) / rate);
}
