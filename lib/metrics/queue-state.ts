import { db } from '../db/client';
import { OPEN_SQL } from '../jobs/states';

/**
 * The queue as the database holds it, for the scrape-time gauges: cheap queries only (jobs by
 * status over its index, chunks of unfinished jobs, the oldest queued job over the status index).
 * Every process answers the same figures: aggregate them with max() (docs/operations.md).
 */
export interface QueueState {
  jobs: Record<string, number>;
  chunks: Record<string, number>;
  oldestQueuedSeconds: number;
}

let cached: { at: number; state: Promise<QueueState> } | undefined;

/** One read per scrape: the gauges of one scrape share it (for a second). */
export function queueState(now = Date.now()): Promise<QueueState> {
  if (!cached || now - cached.at > 1000) {
    const state = readQueueState(now);
    cached = { at: now, state };
    state.catch(() => cached?.state === state && (cached = undefined));
  }
  return cached.state;
}

async function readQueueState(now: number): Promise<QueueState> {
  const { prisma } = await db();
  const [jobs, chunks, oldest] = await Promise.all([
    prisma.job.groupBy({ by: ['status'], _count: { _all: true } }),
    prisma.$queryRawUnsafe<{ state: string; n: number | bigint }[]>(
      `SELECT c.state, COUNT(*) AS n FROM job_chunks c JOIN jobs j ON j.id = c.job_id WHERE j.status IN (${OPEN_SQL}) GROUP BY c.state`,
    ),
    prisma.job.findFirst({ where: { status: 'queued' }, orderBy: { createdAt: 'asc' }, select: { createdAt: true } }),
  ]);
  return {
    jobs: Object.fromEntries(jobs.map((row) => [row.status, row._count._all])),
    chunks: Object.fromEntries(chunks.map((row) => [row.state, Number(row.n)])),
    oldestQueuedSeconds: oldest ? Math.max(0, (now - oldest.createdAt.getTime()) / 1000) : 0,
  };
}
