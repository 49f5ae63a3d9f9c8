import type { Database } from '../db/client';
import { q, sqlValue } from '../db/sql';
import { AppError } from '../errors/app-error';
import { buildEvent, enqueueEvent } from '../webhooks/outbox';
import { quotaState, safely } from './quota-events';
import { utcDay } from './day';
import { bool } from '../results/rows';

/**
 * A publishable key's daily budget (docs/integrations.md, "Publishable keys"): its charged checks of
 * one UTC day may not pass its cap (`rate_limits.checks_per_day`, default
 * EV_PUBLISHABLE_CHECKS_PER_DAY). Origin binds only browsers and a script sends any Origin, so this,
 * not the per-minute rate, bounds what a copied key can spend. A check takes one from the day's
 * count before it reserves credits and gives it back when it is not charged (a cache hit, a rule, a
 * timeout, an error), so the count is the day's charged checks, exact under concurrency: one
 * conditional upsert per check. At four fifths of the cap the account's quota.warning webhook is sent
 * once that day, naming the key.
 */
export interface KeyBudget {
  keyId: string;
  name: string;
  perDay: number;
}

const WARN_AT = 0.8;

function untilMidnightUtc(now: number): number {
  const next = new Date(now);
  next.setUTCHours(24, 0, 0, 0);
  return Math.max(1, Math.ceil((next.getTime() - now) / 1000));
}

/** Takes one check of the key's day and returns the day; 429 `rate_limit` when the day's cap is spent. */
export async function takeBudget(database: Database, userId: string, budget: KeyBudget, now = Date.now()): Promise<string> {
  const { prisma, dialect } = database;
  const day = utcDay(now);
  const rows = await prisma.$queryRawUnsafe<{ checks: number | bigint; warned: boolean | number | bigint }[]>(
    q(
      dialect,
      `INSERT INTO publishable_key_days (key_id, day, checks) VALUES (?, ?, 1)
      ON CONFLICT (key_id, day) DO UPDATE SET checks = publishable_key_days.checks + 1 WHERE publishable_key_days.checks < ?
      RETURNING checks, warned`,
    ),
    budget.keyId,
    day,
    budget.perDay,
  );
  if (!rows.length) {
    const retryAfter = untilMidnightUtc(now);
    throw new AppError(
      'rate_limit',
      `This publishable key has used its ${budget.perDay} charged checks for today (UTC days); it starts again at midnight UTC. The account can raise rate_limits.checks_per_day.`,
      { retry_after: retryAfter, limit: budget.perDay },
      { 'Retry-After': String(retryAfter) },
    );
  }
  const checks = Number(rows[0]!.checks);
  // once warned, the rest of the day's checks skip it (warnOnce's conditional claim stays the guard)
  if (!bool(rows[0]!.warned) && checks >= Math.ceil(budget.perDay * WARN_AT)) await safely(() => warnOnce(database, userId, budget, day, checks));
  return day;
}

/** Gives a check back to the day it was taken from: it was not charged. */
export async function giveBackBudget({ prisma, dialect }: Database, budget: KeyBudget, day: string): Promise<void> {
  await prisma.$executeRawUnsafe(
    q(dialect, 'UPDATE publishable_key_days SET checks = checks - 1 WHERE key_id = ? AND day = ? AND checks > 0'),
    budget.keyId,
    day,
  );
}

/** `quota.warning` for the key, once a day: claimed by a conditional update, queued in its transaction. */
async function warnOnce(database: Database, userId: string, budget: KeyBudget, day: string, checks: number): Promise<void> {
  const { prisma, dialect } = database;
  const state = await quotaState(database, userId);
  await prisma.$transaction(async (tx) => {
    const claimed = await tx.$executeRawUnsafe(
      q(dialect, `UPDATE publishable_key_days SET warned = ? WHERE key_id = ? AND day = ? AND warned = ?`),
      sqlValue(dialect, true),
      budget.keyId,
      day,
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
        publishableKey: { id: budget.keyId, name: budget.name, checksToday: checks, checksPerDay: budget.perDay },
      }),
    );
  });
}

/** Today's charged checks of each of these keys (0 for a key without a row). */
export async function checksToday({ prisma }: Database, keyIds: string[], now = Date.now()): Promise<Map<string, number>> {
  if (!keyIds.length) return new Map();
  const rows = await prisma.publishableKeyDay.findMany({ where: { keyId: { in: keyIds }, day: utcDay(now) } });
  return new Map(rows.map((row) => [row.keyId, row.checks]));
}
