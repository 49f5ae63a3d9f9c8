import type { Database } from '../db/client';
import { isIdShaped, newId } from '../db/ids';
import { AppError, notFound } from '../errors/app-error';
import { getOwnJob } from '../jobs/status/status';
import type { JobSummary } from '../results/summary';
import type { Change } from './changes';
import { DAY_MS } from '../usage/days';

/**
 * Monitors as the API shows them (docs/lists.md, "Monitors"): a finished list re-verified every
 * `interval_days`; paused, resumed, re-timed, deleted. A monitor belongs to its list's mode: a sandbox
 * caller sees only monitors of sandbox lists. Its runs (lib/monitors/runs.ts) are jobs; deleting the
 * monitor keeps them.
 */

type MonitorRow = NonNullable<Awaited<ReturnType<Database['prisma']['monitor']['findUnique']>>>;

function shown(monitor: MonitorRow, sandbox: boolean) {
  return {
    id: monitor.id,
    listId: monitor.listId,
    intervalDays: monitor.intervalDays,
    paused: monitor.paused,
    sandbox,
    nextRunAt: new Date(Number(monitor.nextRunAt)).toISOString(),
    latestJobId: monitor.latestJobId,
    lastSkippedAt: monitor.lastSkippedAt === null ? null : new Date(Number(monitor.lastSkippedAt)).toISOString(),
    lastSkipReason: monitor.lastSkipReason,
    createdAt: monitor.createdAt.toISOString(),
  };
}

/** The caller's monitor in its mode (the mode of the list), or a 404. */
async function ownMonitor(database: Database, userId: string, id: string, sandbox: boolean): Promise<MonitorRow> {
  if (!isIdShaped(id)) throw notFound('Monitor');
  const monitor = await database.prisma.monitor.findUnique({ where: { id } });
  if (!monitor || monitor.userId !== userId) throw notFound('Monitor');
  const list = await database.prisma.job.findUnique({ where: { id: monitor.listId }, select: { sandbox: true } });
  if ((list?.sandbox ?? false) !== sandbox) throw notFound('Monitor');
  return monitor;
}

export async function createMonitor(database: Database, userId: string, sandbox: boolean, body: { list_id: string; interval_days: number }, now = Date.now()) {
  const list = await getOwnJob(database, userId, body.list_id, sandbox);
  if (list.status !== 'completed') throw new AppError('job_not_completed', `Job ${list.id} is ${list.status}; a list can be monitored once it has completed.`);
  if (list.monitorId) throw new AppError('conflict', `Job ${list.id} is a run of monitor ${list.monitorId}; monitor the list itself.`);
  const existing = await database.prisma.monitor.findUnique({ where: { listId: list.id } });
  if (existing) throw new AppError('conflict', `List ${list.id} is already monitored by ${existing.id}.`);
  const monitor = await database.prisma.monitor
    .create({
      data: { id: newId('mon'), userId, listId: list.id, intervalDays: body.interval_days, nextRunAt: BigInt(now + body.interval_days * DAY_MS) },
    })
    .catch((error: unknown) => {
      // two creates of the same list at once: the unique list_id lets one through
      if ((error as { code?: string }).code === 'P2002') throw new AppError('conflict', `List ${list.id} is already monitored.`);
      throw error;
    });
  return shown(monitor, sandbox);
}

export async function listMonitors(database: Database, userId: string, sandbox: boolean) {
  const monitors = await database.prisma.monitor.findMany({ where: { userId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
  const lists = await database.prisma.job.findMany({ where: { id: { in: monitors.map((m) => m.listId) } }, select: { id: true, sandbox: true } });
  const modeOf = new Map(lists.map((list) => [list.id, list.sandbox]));
  return { data: monitors.filter((m) => (modeOf.get(m.listId) ?? false) === sandbox).map((m) => shown(m, sandbox)) };
}

/**
 * A monitor with its list's health: the list and each run, oldest first, with the count of each
 * verdict bucket (the dashboard's chart shows their shares) and the rows that changed against the
 * one before.
 */
export async function getMonitor(database: Database, userId: string, id: string, sandbox: boolean) {
  const monitor = await ownMonitor(database, userId, id, sandbox);
  const jobs = await database.prisma.job.findMany({
    where: { OR: [{ id: monitor.listId }, { monitorId: monitor.id }] },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    select: { id: true, status: true, summary: true, changes: true, createdAt: true, completedAt: true, monitorId: true },
  });
  const runs = jobs.map((job) => {
    const summary = job.summary ? (JSON.parse(job.summary) as JobSummary) : null;
    const changes = job.changes ? (JSON.parse(job.changes) as Change[]) : null;
    return {
      jobId: job.id,
      status: job.status,
      startedAt: job.createdAt.toISOString(),
      completedAt: job.completedAt?.toISOString() ?? null,
      deliverable: summary?.deliverable ?? 0,
      undeliverable: summary?.undeliverable ?? 0,
      risky: summary?.risky ?? 0,
      unknown: summary?.unknown ?? 0,
      changedEmails: changes ? changes.reduce((n, c) => n + c.count, 0) : null,
      changes: changes ?? [],
    };
  });
  return { ...shown(monitor, sandbox), runs };
}

export async function updateMonitor(
  database: Database,
  userId: string,
  id: string,
  sandbox: boolean,
  body: { paused?: boolean; interval_days?: number },
  now = Date.now(),
) {
  const monitor = await ownMonitor(database, userId, id, sandbox);
  const data: { paused?: boolean; intervalDays?: number; nextRunAt?: bigint } = {};
  if (body.paused !== undefined) data.paused = body.paused;
  if (body.interval_days !== undefined && body.interval_days !== monitor.intervalDays) {
    // the period under way keeps its start: the next run is the new interval after it (or now, if that has passed)
    const periodStart = Number(monitor.nextRunAt) - monitor.intervalDays * DAY_MS;
    data.intervalDays = body.interval_days;
    data.nextRunAt = BigInt(Math.max(now, periodStart + body.interval_days * DAY_MS));
  }
  // conditional on the period it read, so a run starting meanwhile is not undone
  const updated = await database.prisma.monitor.updateMany({ where: { id, periods: monitor.periods }, data });
  if (updated.count !== 1) throw new AppError('conflict', 'A run of this monitor started meanwhile; read it again and retry.');
  return shown(await database.prisma.monitor.findUniqueOrThrow({ where: { id } }), sandbox);
}

export async function deleteMonitor(database: Database, userId: string, id: string, sandbox: boolean) {
  await ownMonitor(database, userId, id, sandbox);
  await database.prisma.monitor.deleteMany({ where: { id, userId } });
  return { id, deleted: true as const };
}
