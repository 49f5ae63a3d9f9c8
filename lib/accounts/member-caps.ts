import { ask, type Plan } from '../db/plan';
import { AppError } from '../errors/app-error';

/**
 * Credits per member (docs/teams.md): an admin caps a person's charged checks per UTC day and per
 * calendar month (UTC) in an organisation (`memberships.checks_per_day`, `checks_per_month`).
 * Every production reservation made by a person (a session's, or the maker of the key used:
 * `Caller.actorId`) counts in `member_usage_days` and `member_usage_months` in the reservation's own
 * transaction (lib/accounts/quota.ts), and its reserve row names that person
 * (`credit_ledger.actor_id`), so the refund of what was not charged gives it back to them in the
 * refund's transaction (lib/accounts/ledger.ts), whoever settles it. Work with no person (a
 * monitor's run) counts against nobody; the sandbox never reserves, so it never counts.
 *
 * Concurrency: each count is one conditional upsert of one row (the day's, then the month's) that
 * adds only while the sum stays within the cap. The row's lock orders concurrent reservations of
 * one person (PostgreSQL re-checks the condition on the row it waited for; SQLite's reservation
 * runs under the write lock), so they cannot pass the cap; the one that would adds nothing and its
 * whole reservation rolls back. People without a cap (owners, by default) never wait on anyone
 * else's rows, and the rows are taken last in the reservation, so they are held only to its commit.
 */

type Row = Record<string, unknown>;
const num = (value: unknown) => Number(value ?? 0);
const NO_CAP = 2147483647;

const PERIODS = {
  day: { table: 'member_usage_days', column: 'day', cap: 'checks_per_day', key: (day: string) => day },
  month: { table: 'member_usage_months', column: 'month', cap: 'checks_per_month', key: (day: string) => day.slice(0, 7) },
} as const;
type Period = keyof typeof PERIODS;

const capSql = (period: Period) => `COALESCE((SELECT ${PERIODS[period].cap} FROM memberships WHERE org_id = ? AND user_id = ?), ${NO_CAP})`;

/** Adds `count` to the period's row only while it stays within the cap (no membership or no cap: always). Params: org, person, key, count, then org, person twice. */
const countSql = (period: Period) => {
  const { table, column } = PERIODS[period];
  return `INSERT INTO ${table} (org_id, user_id, ${column}, used)
    SELECT CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS INTEGER) WHERE ? <= ${capSql(period)}
    ON CONFLICT (org_id, user_id, ${column}) DO UPDATE SET used = ${table}.used + excluded.used
    WHERE ${table}.used + excluded.used <= ${capSql(period)}`;
};
const countParams = (orgId: string, actorId: string, key: string, count: number) => [orgId, actorId, key, count, count, orgId, actorId, orgId, actorId];

/** What the refusal names: the cap and what was used of it. */
const usedSql = (period: Period) =>
  `SELECT ${PERIODS[period].cap} AS cap, (SELECT used FROM ${PERIODS[period].table} WHERE org_id = ? AND user_id = ? AND ${PERIODS[period].column} = ?) AS used
    FROM memberships WHERE org_id = ? AND user_id = ?`;

/** A refund's give-back, day and month, to the person its reserve row names (none: nothing to give back). Params: count, org, key, cause. */
export const GIVE_BACK_SQL = (['day', 'month'] as const).map(
  (period) => `UPDATE ${PERIODS[period].table} SET used = used - ?
  WHERE org_id = ? AND ${PERIODS[period].column} = ? AND user_id = (SELECT actor_id FROM credit_ledger WHERE cause = ? AND kind = 'reserve')`,
);
export const giveBackKeys = (day: string) => [PERIODS.day.key(day), PERIODS.month.key(day)];

/** When the cap of `period` counted on `day` is spent no more: the next UTC midnight, or the first of next month. */
export function resetsAt(day: string, period: Period): string {
  const start = new Date(`${day}T00:00:00Z`);
  const next = period === 'day' ? new Date(start.getTime() + 86_400_000) : new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
  return next.toISOString().replace('.000Z', 'Z');
}

/** 402: adding `count` would pass the person's cap of `period`. */
function capReached(period: Period, day: string, row: Row | undefined, count: number): AppError {
  const cap = num(row?.cap);
  const used = num(row?.used);
  const resets = resetsAt(day, period);
  return new AppError(
    'member_cap_reached',
    `Your cap in this organisation is ${cap} charged checks per ${period === 'day' ? 'day (UTC)' : 'calendar month (UTC)'}: ${used} used, ${Math.max(0, cap - used)} left, and this needs ${count}. ` +
      `It resets at ${resets}; an admin of the organisation can raise it. Others in the organisation are not affected.`,
    { period, cap, used, required: count, resets_at: resets },
  );
}

/**
 * Counts `count` charged checks of `actorId` in `orgId` on `day` (and its month), as a step of the
 * reservation's plan (lib/accounts/quota.ts); throws 402 `member_cap_reached` past a cap.
 */
export function* countMember(orgId: string, actorId: string, day: string, count: number): Plan<void> {
  for (const period of ['day', 'month'] as const) {
    const key = PERIODS[period].key(day);
    if ((yield* ask('execute', countSql(period), countParams(orgId, actorId, key, count))) === 1) continue;
    const row = (yield* ask('query', usedSql(period), [orgId, actorId, key, orgId, actorId]))[0];
    throw capReached(period, day, row, count);
  }
}
