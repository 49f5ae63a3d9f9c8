import type { z } from 'zod';
import type { usageRow } from '../api/responses-rules';
import type { CamelKeys } from '../api/shape';
import type { Database } from '../db/client';
import { selectRows } from '../db/sql';
import { AppError } from '../errors/app-error';
import { daySql, daysOf, dayOf, msRange, type DayRange } from './days';
import { ledgerByDay } from './ledger';
import { usageByMember } from './members';
import { keptUsage } from '../retention/usage-kept';

/** GET /v1/usage: per UTC day and mode, checks by verdict bucket and the quota's movements. */

export const MAX_USAGE_DAYS = 366;
const MODES = ['production', 'sandbox'] as const;

/** A row as the contract declares it (lib/api/responses.ts `usageRow`). */
export type UsageRow = CamelKeys<z.infer<typeof usageRow>>;

/** The range asked for, by default the last 30 days up to today (UTC); 400 when it is backwards or too long. */
export function usageRange(query: { from?: string; to?: string }, now = Date.now()): DayRange {
  const to = query.to ?? dayOf(now);
  const from = query.from ?? dayOf(Date.parse(`${to}T00:00:00Z`) - 29 * 86_400_000);
  for (const [param, day] of [
    ['from', from],
    ['to', to],
  ] as const) {
    if (Number.isNaN(Date.parse(`${day}T00:00:00Z`)) || dayOf(Date.parse(`${day}T00:00:00Z`)) !== day)
      throw new AppError('invalid_request', `${param} is not a day (YYYY-MM-DD).`, { param });
  }
  if (from > to) throw new AppError('invalid_request', '`from` is after `to`.', { param: 'from' });
  if (daysOf({ from, to }).length > MAX_USAGE_DAYS) throw new AppError('invalid_request', `At most ${MAX_USAGE_DAYS} days at once.`, { param: 'from' });
  return { from, to };
}

/** GET /v1/usage's one domain call: the range asked for and its rows; with `by=member`, the split by person too (lib/usage/members.ts). */
export async function usageFor(database: Database, userId: string, query: { from?: string; to?: string; by?: 'member' }) {
  const range = usageRange(query);
  const data = await usageReport(database, userId, range);
  return query.by === 'member' ? { ...range, data, members: await usageByMember(database, userId, range) } : { ...range, data };
}

/** Every day of the range in both modes (zeros included, so a chart or a spreadsheet needs no gaps filled). */
export async function usageReport(database: Database, userId: string, range: DayRange): Promise<UsageRow[]> {
  const [start, end] = msRange(range);
  const counted = await selectRows<{
    day: string;
    sandbox: boolean | number;
    checks: number | bigint;
    deliverable: number | bigint;
    undeliverable: number | bigint;
    unknown: number | bigint;
  }>(
    database,
    `SELECT ${daySql(database)} AS day, sandbox, COUNT(*) AS checks,
      SUM(CASE WHEN status = 'deliverable' THEN 1 ELSE 0 END) AS deliverable,
      SUM(CASE WHEN status = 'undeliverable' THEN 1 ELSE 0 END) AS undeliverable,
      SUM(CASE WHEN status = 'unknown' THEN 1 ELSE 0 END) AS unknown
    FROM verifications WHERE user_id = ? AND created_at >= ? AND created_at < ? GROUP BY 1, 2`,
    [userId, start, end],
  );
  const key = (day: string, sandbox: boolean) => `${day}/${sandbox ? 'sandbox' : 'production'}`;
  const byKey = new Map(counted.map((row) => [key(row.day, row.sandbox === true || Number(row.sandbox) === 1), row]));
  // verifications deleted by retention or erasure still count (lib/retention/usage-kept.ts)
  for (const kept of await keptUsage(database, userId, range.from, range.to)) {
    const row = byKey.get(key(kept.day, kept.sandbox));
    const add = (a: number | bigint | undefined, b: number) => Number(a ?? 0) + Number(b);
    byKey.set(key(kept.day, kept.sandbox), {
      day: kept.day,
      sandbox: kept.sandbox,
      checks: add(row?.checks, kept.checks),
      deliverable: add(row?.deliverable, kept.deliverable),
      undeliverable: add(row?.undeliverable, kept.undeliverable),
      unknown: add(row?.unknown, kept.unknown),
    });
  }
  const ledger = await ledgerByDay(database, userId, range);
  return daysOf(range).flatMap((day) =>
    MODES.map((mode): UsageRow => {
      const row = byKey.get(key(day, mode === 'sandbox'));
      const [checks, deliverable, undeliverable, unknown] = [row?.checks, row?.deliverable, row?.undeliverable, row?.unknown].map((n) => Number(n ?? 0)) as [
        number,
        number,
        number,
        number,
      ];
      const moved = mode === 'production' ? ledger.get(day) : undefined;
      return {
        day,
        mode,
        checks,
        deliverable,
        undeliverable,
        risky: checks - deliverable - undeliverable - unknown,
        unknown,
        charged: moved?.charged ?? 0,
        refunded: moved?.refunded ?? 0,
        creditsGranted: moved?.granted ?? 0,
      };
    }),
  );
}

export const USAGE_COLUMNS = ['day', 'mode', 'checks', 'deliverable', 'undeliverable', 'risky', 'unknown', 'charged', 'refunded', 'credits_granted'] as const;

/** The report as CSV (RFC 4180, CRLF); a grant that is not recorded is an empty cell. */
export function usageCsv(rows: UsageRow[]): string {
  const lines = [
    USAGE_COLUMNS.join(','),
    ...rows.map((row) => USAGE_COLUMNS.map((column) => row[column === 'credits_granted' ? 'creditsGranted' : column] ?? '').join(',')),
  ];
  return `${lines.join('\r\n')}\r\n`;
}
