import { db } from '../db/client';
import { q } from '../db/sql';

/**
 * Fixed-window counters in the `auth_throttles` table, so every web server (and a restart) counts
 * the same sign-in failures and sign-ups. A counter is taken before the work it guards, in one
 * atomic upsert, so parallel attempts cannot all slip under the limit.
 */
export interface Count {
  count: number;
  /** seconds until the window ends */
  retryAfter: number;
}

let lastSweep = 0;

/** Counts one attempt under `key` and returns the window's count including it. */
export async function countAttempt(key: string, windowMs: number, now = Date.now()): Promise<Count> {
  const { prisma, dialect } = await db();
  await sweep(windowMs, now);
  const expired = now - windowMs;
  const rows = await prisma.$queryRawUnsafe<{ count: number | bigint; window_start: number | bigint }[]>(
    q(
      dialect,
      `INSERT INTO "auth_throttles" ("key", "window_start", "count") VALUES (?, ?, 1)
       ON CONFLICT ("key") DO UPDATE SET
         "count" = CASE WHEN "auth_throttles"."window_start" <= ? THEN 1 ELSE "auth_throttles"."count" + 1 END,
         "window_start" = CASE WHEN "auth_throttles"."window_start" <= ? THEN ? ELSE "auth_throttles"."window_start" END
       RETURNING "count", "window_start"`,
    ),
    key,
    now,
    expired,
    expired,
    now,
  );
  const row = rows[0]!;
  return { count: Number(row.count), retryAfter: Math.max(1, Math.ceil((Number(row.window_start) + windowMs - now) / 1000)) };
}

/** Takes back one counted attempt (a sign-in that succeeded does not count against its address). */
export async function uncountAttempt(key: string): Promise<void> {
  const { prisma, dialect } = await db();
  await prisma.$executeRawUnsafe(q(dialect, 'UPDATE "auth_throttles" SET "count" = "count" - 1 WHERE "key" = ? AND "count" > 0'), key);
}

export async function clearAttempts(key: string): Promise<void> {
  const { prisma, dialect } = await db();
  await prisma.$executeRawUnsafe(q(dialect, 'DELETE FROM "auth_throttles" WHERE "key" = ?'), key);
}

/** Forgets ended windows now and then, so made-up emails cannot grow the table for ever. */
async function sweep(windowMs: number, now: number): Promise<void> {
  if (now - lastSweep < 60_000) return;
  lastSweep = now;
  const { prisma, dialect } = await db();
  // The longest window any caller uses is an hour by default; a day is past every sane setting.
  await prisma.$executeRawUnsafe(q(dialect, 'DELETE FROM "auth_throttles" WHERE "window_start" < ?'), now - Math.max(windowMs, 24 * 3600_000));
}
