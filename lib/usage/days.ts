import type { Database } from '../db/client';
import { byDialect } from '../db/sql';

/** UTC days as the usage report counts them: `YYYY-MM-DD`, inclusive ranges. */
export interface DayRange {
  from: string;
  to: string;
}

export const DAY_MS = 86_400_000;

export const dayStart = (day: string) => Date.parse(`${day}T00:00:00Z`);
export const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Every day of the range, in order. */
export function daysOf(range: DayRange): string[] {
  const days: string[] = [];
  for (let at = dayStart(range.from); at <= dayStart(range.to); at += DAY_MS) days.push(dayOf(at));
  return days;
}

/** The range in milliseconds, `[start, end)`, for `created_at` columns. */
export const msRange = (range: DayRange) => [dayStart(range.from), dayStart(range.to) + DAY_MS] as const;

/** SQL: the UTC day of a `created_at` column in epoch milliseconds. */
export function daySql(database: Database, column = 'created_at'): string {
  return byDialect(database.dialect, {
    postgres: `to_char(to_timestamp(${column} / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD')`,
    sqlite: `strftime('%Y-%m-%d', ${column} / 1000, 'unixepoch')`,
  });
}
