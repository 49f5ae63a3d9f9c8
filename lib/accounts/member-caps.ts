import type BetterSqlite3 from 'better-sqlite3';
import type { Dialect } from '../db/client';
import { q } from '../db/sql';
import { AppError } from '../errors/errors';
import type { LedgerTx } from './ledger';

/**
 * Credits per member (docs/teams.md): an admin caps a person's charged checks per UTC day and per
 * calendar month (UTC) in an organisation (`memberships.checks_per_day`, `checks_per_month`).
 * Every production reservation made by a person (a session's, or the maker of the key used:
 * `Caller.actorId`) counts in `member_usage_days` in the reservation's own transaction
 * (lib/accounts/quota.ts), and its reserve row names that person (`credit_ledger.actor_id`), so the
 * refund of what was not charged gives it back to them in the refund's transaction
 * (lib/accounts/ledger.ts), whoever settles it. Work with no person (a monitor's run) counts
 * against nobody; the sandbox never reserves, so it never counts.
 *
 * Concurrency: a capped person's reservations first lock their membership row (PostgreSQL,
 * `FOR UPDATE`; SQLite's reservation runs under the write lock already), then read the day's and
 * the month's counts and add to them; one past the cap throws and rolls the whole reservation back.
 * So concurrent requests of one person cannot pass the cap, while people without a cap (owners, by
 * default) take no lock beyond what the reservation takes anyway.
 */

interface Caps {
  perDay: number | null;
  perMonth: number | null;
}

type Row = Record<string, unknown>;
const num = (value: unknown) => Number(value ?? 0);

const CAPS_SQL = 'SELECT checks_per_day, checks_per_month FROM memberships WHERE org_id = ? AND user_id = ?';
const USED_SQL = `SELECT COALESCE(SUM(CASE WHEN day = ? THEN used ELSE 0 END), 0) AS today, COALESCE(SUM(used), 0) AS month
  FROM member_usage_days WHERE org_id = ? AND user_id = ? AND day >= ? AND day <= ?`;
const COUNT_SQL = `INSERT INTO member_usage_days (org_id, user_id, day, used) VALUES (?, ?, ?, ?)
  ON CONFLICT (org_id, user_id, day) DO UPDATE SET used = member_usage_days.used + excluded.used`;
/** A refund's give-back: to the person its reserve row names (none: nothing to give back). */
export const GIVE_BACK_SQL = `UPDATE member_usage_days SET used = used - ?
  WHERE org_id = ? AND day = ? AND user_id = (SELECT actor_id FROM credit_ledger WHERE cause = ? AND kind = 'reserve')`;

const capsOf = (row: Row | undefined): Caps | null => (row ? {
  perDay: row.checks_per_day === null || row.checks_per_day === undefined ? null : num(row.checks_per_day),
  perMonth: row.checks_per_month === null || row.checks_per_month === undefined ? null : num(row.checks_per_month),
} : null);
const capped = (caps: Caps | null): caps is Caps => caps !== null && (caps.perDay !== null || caps.perMonth !== null);

/** The month of a UTC day (`YYYY-MM-DD`): its first and last possible day, as strings compare. */
const monthOf = (day: string) => [`${day.slice(0, 7)}-01`, `${day.slice(0, 7)}-31`] as const;

/** When the cap of `period` counted on `day` is spent no more: the next UTC midnight, or the first of next month. */
export function resetsAt(day: string, period: 'day' | 'month'): string {
  const start = new Date(`${day}T00:00:00Z`);
  const next = period === 'day'
    ? new Date(start.getTime() + 86_400_000)
    : new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
  return next.toISOString().replace('.000Z', 'Z');
}

/** 402 when adding `count` to what the person used would pass a cap; the day's cap is checked first. */
function assertWithin(caps: Caps, day: string, today: number, month: number, count: number): void {
  const over = caps.perDay !== null && today + count > caps.perDay ? { period: 'day' as const, cap: caps.perDay, used: today }
    : caps.perMonth !== null && month + count > caps.perMonth ? { period: 'month' as const, cap: caps.perMonth, used: month }
      : null;
  if (!over) return;
  const resets = resetsAt(day, over.period);
  const left = Math.max(0, over.cap - over.used);
  throw new AppError(
    'member_cap_reached',
    `Your cap in this organisation is ${over.cap} charged checks per ${over.period === 'day' ? 'day (UTC)' : 'calendar month (UTC)'}: ${over.used} used, ${left} left, and this needs ${count}. `
      + `It resets at ${resets}; an admin of the organisation can raise it. Others in the organisation are not affected.`,
    { period: over.period, cap: over.cap, used: over.used, required: count, resets_at: resets },
  );
}

/**
 * Counts `count` charged checks of `actorId` in `orgId` on `day`, in the caller's reservation
 * transaction (Prisma's, on either database); throws 402 `member_cap_reached` past a cap.
 */
export async function countMember(tx: LedgerTx, dialect: Dialect, orgId: string, actorId: string, day: string, count: number): Promise<void> {
  let caps = capsOf((await tx.$queryRawUnsafe<Row[]>(q(dialect, CAPS_SQL), orgId, actorId))[0]);
  if (capped(caps)) {
    // the lock every reservation of a capped person takes first: the reads below see the latest counts
    if (dialect === 'postgres') caps = capsOf((await tx.$queryRawUnsafe<Row[]>(q(dialect, `${CAPS_SQL} FOR UPDATE`), orgId, actorId))[0]);
    if (capped(caps)) {
      const used = (await tx.$queryRawUnsafe<Row[]>(q(dialect, USED_SQL), day, orgId, actorId, ...monthOf(day)))[0];
      assertWithin(caps, day, num(used?.today), num(used?.month), count);
    }
  }
  await tx.$executeRawUnsafe(q(dialect, COUNT_SQL), orgId, actorId, day, count);
}

/** countMember on SQLite's direct connection, inside the reservation's IMMEDIATE transaction (lib/accounts/quota.ts). */
export function countMemberSqlite(bulk: BetterSqlite3.Database, orgId: string, actorId: string, day: string, count: number): void {
  const caps = capsOf(bulk.prepare(CAPS_SQL).get(orgId, actorId) as Row | undefined);
  if (capped(caps)) {
    const used = bulk.prepare(USED_SQL).get(day, orgId, actorId, ...monthOf(day)) as Row | undefined;
    assertWithin(caps, day, num(used?.today), num(used?.month), count);
  }
  bulk.prepare(COUNT_SQL).run(orgId, actorId, day, count);
}
