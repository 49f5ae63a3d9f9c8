import type { Database } from '../db/client';
import { recordAudit } from '../audit/record';
import { env } from '../config/env';
import { q, sqlValue } from '../db/sql';
import { buildEvent, enqueueEvent } from '../webhooks/outbox';
import { utcDay } from './day';

/**
 * Quota events (docs/rules-and-usage.md): `quota.warning` once each time the account's credits
 * plus today's free checks are seen falling below its threshold, and `quota.exceeded` when a
 * request is refused for want of credits, at most once an hour. State lives in `quota_alerts`;
 * each event is claimed by one conditional upsert and queued in the same transaction (the outbox),
 * so concurrent requests send it once, signed and retried like every other event.
 */

export const EXCEEDED_EVERY_MS = 3_600_000;

interface Level {
  credits: number;
  used: number;
  warn_below: number | null;
  warned: boolean | number | null;
  exceeded_at: number | bigint | null;
}

async function level({ prisma, dialect }: Database, userId: string): Promise<Level | undefined> {
  const rows = await prisma.$queryRawUnsafe<Level[]>(
    q(
      dialect,
      `SELECT u.credits, COALESCE(d.used, 0) AS used, a.warn_below, a.warned, a.exceeded_at FROM users u
      LEFT JOIN usage_days d ON d.user_id = u.id AND d.day = ? LEFT JOIN quota_alerts a ON a.user_id = u.id WHERE u.id = ?`,
    ),
    utcDay(),
    userId,
  );
  return rows[0];
}

/** The account's quota and where its warning stands: GET /v1/account/quota and the dashboard's banner. */
export async function quotaState(database: Database, userId: string) {
  return stateOf(await level(database, userId));
}

function stateOf(row: Level | undefined) {
  const credits = Number(row?.credits ?? 0);
  const freeRemaining = Math.max(0, env().EV_FREE_DAILY - Number(row?.used ?? 0));
  const warningBelow = row?.warn_below ?? env().EV_QUOTA_WARNING_BELOW;
  const exceededAt = row?.exceeded_at == null ? null : Number(row.exceeded_at);
  return {
    credits,
    freeRemainingToday: freeRemaining,
    remaining: credits + freeRemaining,
    warningBelow,
    warningBelowIsDefault: row?.warn_below == null,
    below: credits + freeRemaining < warningBelow,
    exceededAt: exceededAt === null ? null : new Date(exceededAt).toISOString(),
  };
}

/** Sets the threshold (null: back to EV_QUOTA_WARNING_BELOW); the next reservation compares against it. */
export async function setQuotaWarning(database: Database, userId: string, warningBelow: number | null) {
  await database.prisma.$transaction(async (tx) => {
    const before = await tx.quotaAlert.findUnique({ where: { userId }, select: { warnBelow: true } });
    await tx.quotaAlert.upsert({ where: { userId }, create: { userId, warnBelow: warningBelow }, update: { warnBelow: warningBelow, warned: false } });
    await recordAudit(
      tx,
      userId,
      'settings.changed',
      { type: 'settings', id: 'quota_warning' },
      { setting: 'warning_below', from: before?.warnBelow ?? null, to: warningBelow },
    );
  });
  return quotaState(database, userId);
}

/** After a reservation: sends `quota.warning` when the balance is below the threshold and was not already warned of. */
export async function noteQuotaLevel(database: Database, userId: string): Promise<void> {
  const row = await level(database, userId);
  const state = stateOf(row);
  const warned = row?.warned === true || Number(row?.warned) === 1;
  const { prisma, dialect } = database;
  if (!state.below) {
    // back at or above the threshold: the next fall below is a new crossing
    if (warned) await prisma.quotaAlert.updateMany({ where: { userId, warned: true }, data: { warned: false } });
    return;
  }
  if (warned) return; // one query on the hot path when nothing is to be sent
  await prisma.$transaction(async (tx) => {
    const claimed = await tx.$executeRawUnsafe(
      q(
        dialect,
        `INSERT INTO quota_alerts (user_id, warned) VALUES (?, ?) ON CONFLICT (user_id) DO UPDATE SET warned = excluded.warned WHERE quota_alerts.warned = ?`,
      ),
      userId,
      sqlValue(dialect, true),
      sqlValue(dialect, false),
    );
    if (claimed !== 1) return;
    await enqueueEvent(
      tx,
      userId,
      buildEvent('quota.warning', false, {
        remaining: state.remaining,
        credits: state.credits,
        freeRemainingToday: state.freeRemainingToday,
        warningBelow: state.warningBelow,
      }),
    );
  });
}

/** The `extra` of a 402 `insufficient_credits` (lib/accounts/quota.ts): the error body's fields, under their wire names. */
export interface Refusal {
  required: number;
  credits: number;
  free_remaining_today: number;
}

/** A refusal as `quota.exceeded` gives it, in camelCase, in the order the error lists its fields. */
export const refusalOf = (refused: Refusal) => ({ required: refused.required, freeRemainingToday: refused.free_remaining_today, credits: refused.credits });

/** A request was refused with 402: `quota.exceeded`, unless one was queued within the hour. */
export async function noteQuotaExceeded(database: Database, userId: string, refused: Refusal, now = Date.now()): Promise<void> {
  const { prisma, dialect } = database;
  await prisma.$transaction(async (tx) => {
    const claimed = await tx.$executeRawUnsafe(
      q(
        dialect,
        `INSERT INTO quota_alerts (user_id, exceeded_at) VALUES (?, ?) ON CONFLICT (user_id) DO UPDATE SET exceeded_at = excluded.exceeded_at
        WHERE quota_alerts.exceeded_at IS NULL OR quota_alerts.exceeded_at <= ?`,
      ),
      userId,
      now,
      now - EXCEEDED_EVERY_MS,
    );
    if (claimed !== 1) return;
    await enqueueEvent(tx, userId, buildEvent('quota.exceeded', false, { ...refusalOf(refused), refusedAt: new Date(now) }));
  });
}

/** Quota events never fail the request that caused them: the reservation or the 402 stands. */
export async function safely(note: () => Promise<void>): Promise<void> {
  await note().catch((error: unknown) => console.error('[quota] event not queued', error));
}
