import type { Database } from '../db/client';
import { recordAudit } from '../audit/record';
import { env } from '../config/env';
import { DAY_MS } from '../usage/days';
import { AppError } from '../errors/app-error';
import { monitoredJobsToKeep } from '../monitors/keep';
import { ENDED_STATES } from '../jobs/states';

/**
 * How long an account's data is kept (docs/retention.md). EV_RETENTION_DAYS is the installation's
 * default and its maximum (0: kept until deleted); an account may choose fewer days, never more.
 */

/** `list.expiring` is sent this many days before a list is deleted, and again a day before. */
export const WARN_DAYS = [7, 1] as const;
/** Only a list that has ended is expired (one still running is left until it ends). */
export const ENDED_STATUSES = [...ENDED_STATES];

/** The days an account's data is kept: its own setting within the installation's, or null (kept). */
export function effectiveDays(accountDays: number | null): number | null {
  const max = env().EV_RETENTION_DAYS;
  if (accountDays !== null && accountDays > 0) return max > 0 ? Math.min(accountDays, max) : accountDays;
  return max > 0 ? max : null;
}

/** When data created at `createdAt` (ms) is deleted, or null when it is kept. */
export function expiresAt(createdAt: number, days: number | null): number | null {
  return days === null ? null : createdAt + days * DAY_MS;
}

interface Expiring {
  jobId: string;
  filename: string | null;
  totalEmails: number;
  createdAt: string;
  expiresAt: string;
}

/** GET /v1/account/retention: the setting, the installation's bounds and the lists deleted within 7 days (the dashboard's banner). */
export async function retentionState(database: Database, userId: string, now = Date.now()) {
  const user = await database.prisma.user.findUnique({ where: { id: userId }, select: { retentionDays: true } });
  const accountDays = user?.retentionDays ?? null;
  const days = effectiveDays(accountDays);
  const max = env().EV_RETENTION_DAYS;
  let expiring: Expiring[] = [];
  if (days !== null) {
    const cutoff = now - days * DAY_MS;
    const kept = [...(await monitoredJobsToKeep(database, userId))];
    const rows = await database.prisma.job.findMany({
      where: { userId, retentionHold: false, id: { notIn: kept }, status: { in: ENDED_STATUSES }, createdAt: { lt: new Date(cutoff + WARN_DAYS[0] * DAY_MS) } },
      orderBy: { createdAt: 'asc' },
      take: 20,
      select: { id: true, uploadFilename: true, totalEmails: true, createdAt: true },
    });
    expiring = rows.map((row) => ({
      jobId: row.id,
      filename: row.uploadFilename,
      totalEmails: row.totalEmails,
      createdAt: row.createdAt.toISOString(),
      expiresAt: new Date(Math.max(now, row.createdAt.getTime() + days * DAY_MS)).toISOString(),
    }));
  }
  return {
    retentionDays: days,
    accountDays,
    defaultDays: max > 0 ? max : null,
    maxDays: max > 0 ? max : null,
    expiring,
  };
}

/** POST /v1/account/retention: null goes back to the installation's default; more days than EV_RETENTION_DAYS is a 400. */
export async function setRetention(database: Database, userId: string, days: number | null) {
  const max = env().EV_RETENTION_DAYS;
  if (days !== null && max > 0 && days > max) {
    throw new AppError('invalid_request', `This installation keeps data at most ${max} days (EV_RETENTION_DAYS): choose ${max} or fewer.`, {
      param: 'retention_days',
    });
  }
  await database.prisma.$transaction(async (tx) => {
    const before = await tx.user.findUnique({ where: { id: userId }, select: { retentionDays: true } });
    await tx.user.update({ where: { id: userId }, data: { retentionDays: days } });
    await recordAudit(
      tx,
      userId,
      'settings.changed',
      { type: 'settings', id: 'retention' },
      { setting: 'retention_days', from: before?.retentionDays ?? null, to: days },
    );
  });
  return retentionState(database, userId);
}
