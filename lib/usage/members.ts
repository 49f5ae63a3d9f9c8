import type { z } from 'zod';
import type { memberUsage } from '../api/responses-rules';
import type { CamelKeys } from '../api/shape';
import { utcDay } from '../accounts/day';
import type { Role } from '../accounts/roles';
import type { Database } from '../db/client';
import { selectRows } from '../db/sql';
import { csvLine } from '../jobs/export/csv-cells';
import { daysOf, type DayRange } from './days';

/**
 * GET /v1/usage?by=member: the organisation's charged checks split by the person they counted
 * against (`member_usage_days`, lib/accounts/member-caps.ts): what each person's requests and lists
 * reserved, less what was given back, on the day it was reserved (a running list counts its
 * reservation until it ends and gives back the rest then). Production only: the sandbox never
 * counts. Work with no person (a monitor's run) is in the account's rows and in nobody's.
 */
export type MemberUsage = CamelKeys<z.infer<typeof memberUsage>>;

export async function usageByMember(database: Database, orgId: string, range: DayRange, now = Date.now()): Promise<MemberUsage[]> {
  const today = utcDay(now);
  const monthStart = `${today.slice(0, 7)}-01`;
  const from = range.from < monthStart ? range.from : monthStart;
  // biome-ignore lint/complexity/useMathMinMax: ISO days are strings, compared as text
  const to = range.to > today ? range.to : today;
  const rows = await selectRows<{ user_id: string; day: string; used: number | bigint }>(
    database,
    'SELECT user_id, day, used FROM member_usage_days WHERE org_id = ? AND day >= ? AND day <= ?',
    [orgId, from, to],
  );
  const members = await database.prisma.membership.findMany({ where: { orgId }, orderBy: { createdAt: 'asc' } });
  // people counted here who are no longer members (a removed member's keys keep working): listed after the members
  const counts = (day: string) => (day >= range.from && day <= range.to) || (day >= monthStart && day <= today);
  const former = [...new Set(rows.filter((r) => Number(r.used) !== 0 && counts(r.day)).map((r) => r.user_id))].filter(
    (id) => !members.some((m) => m.userId === id),
  );
  const people = await database.prisma.user.findMany({
    where: { id: { in: [...members.map((m) => m.userId), ...former] } },
    select: { id: true, email: true },
  });
  const email = new Map(people.map((p) => [p.id, p.email]));
  const used = new Map<string, Map<string, number>>();
  for (const row of rows) {
    const days = used.get(row.user_id) ?? new Map<string, number>();
    days.set(row.day, (days.get(row.day) ?? 0) + Number(row.used));
    used.set(row.user_id, days);
  }
  const inRange = daysOf(range);
  const entry = (userId: string, role: Role | null, perDay: number | null, perMonth: number | null): MemberUsage => {
    const days = used.get(userId) ?? new Map<string, number>();
    const sum = (pick: (day: string) => boolean) => [...days].reduce((total, [day, n]) => total + (pick(day) ? n : 0), 0);
    const perDayInRange = inRange.map((day) => ({ day, charged: days.get(day) ?? 0 }));
    return {
      userId,
      email: email.get(userId) ?? '',
      role,
      checksPerDay: perDay,
      checksPerMonth: perMonth,
      chargedToday: days.get(today) ?? 0,
      chargedThisMonth: sum((day) => day >= monthStart && day <= today),
      charged: perDayInRange.reduce((total, d) => total + d.charged, 0),
      days: perDayInRange,
    };
  };
  return [...members.map((m) => entry(m.userId, m.role as Role, m.checksPerDay, m.checksPerMonth)), ...former.map((id) => entry(id, null, null, null))];
}

export const MEMBER_USAGE_COLUMNS = ['day', 'user_id', 'email', 'role', 'charged'] as const;

/** The split as CSV (RFC 4180, CRLF, formula-escaped: lib/jobs/export/csv-cells.ts): a row per person and day of the range. */
export function memberUsageCsv(members: MemberUsage[]): string {
  let text = csvLine(MEMBER_USAGE_COLUMNS);
  for (const member of members) {
    for (const { day, charged } of member.days) text += csvLine([day, member.userId, member.email, member.role, charged]);
  }
  return text;
}
