import type { Database } from '../db/client';

/**
 * For retention (lib/retention): the jobs a monitored list must keep, per monitor: its list and
 * its latest run (`monitors.latest_job_id`; the next run copies that run's items). Older runs may go.
 * A module of its own, importing no part of the job engine: retention asks it without an import circle.
 */
export async function monitoredJobsToKeep({ prisma }: Database, userId: string): Promise<Set<string>> {
  const monitors = await prisma.monitor.findMany({ where: { userId }, select: { listId: true, latestJobId: true } });
  return new Set(monitors.flatMap((m) => [m.listId, ...(m.latestJobId ? [m.latestJobId] : [])]));
}
