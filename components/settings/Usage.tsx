'use client';

import { useAccount } from '@/lib/client/hooks';
import { useMemberUsage } from '@/lib/client/rules-hooks';
import { Card, ErrorNote, number } from '../ui';

export function UsageStrip() {
  const account = useAccount();
  if (!account.data) return null;
  return (
    <p className="rounded-full bg-white px-3 py-1 text-sm text-slate-600 ring-1 ring-slate-200">
      <span className="font-semibold text-slate-900">{number(account.data.free_remaining_today)}</span> free checks left today ·{' '}
      <span className="font-semibold text-slate-900">{number(account.data.credits)}</span> credits
    </p>
  );
}

export function UsageCard() {
  const account = useAccount();
  const data = account.data;
  return (
    <Card title="Usage" description="Sandbox calls are free and not counted. The free allowance resets at midnight UTC.">
      <ErrorNote error={account.error} />
      {data && (
        <dl className="grid grid-cols-2 gap-3 lg:grid-cols-4">
          <Stat label="Plan" value={data.plan} />
          <Stat label="Used today" value={number(data.used_today)} testId="used-today" />
          <Stat label="Free left today" value={number(data.free_remaining_today)} />
          <Stat label="Credits" value={number(data.credits)} testId="credits" />
        </dl>
      )}
    </Card>
  );
}

function Stat({ label, value, testId }: { label: string; value: string; testId?: string }) {
  return (
    <div className="rounded-xl bg-slate-50 px-4 py-3 ring-1 ring-slate-200">
      <dt className="text-xs text-slate-500">{label}</dt>
      <dd className="mt-1 text-xl font-semibold capitalize tabular-nums text-slate-900" data-testid={testId}>
        {value}
      </dd>
    </div>
  );
}

const cap = (used: number, limit: number | null) => (limit === null ? 'no cap' : `${number(Math.max(0, limit - used))} of ${number(limit)} left`);

/** Charged checks by person: today and this month (UTC), beside their caps (set on the members page by an admin). */
export function MemberUsageCard() {
  const usage = useMemberUsage();
  const members = usage.data?.members ?? [];
  return (
    <Card
      title="Usage by member"
      description="Production checks charged to each person (their sessions and the keys they made), today and this calendar month (UTC). A capped member past a cap gets 402 until it resets; the others go on."
    >
      <ErrorNote error={usage.error} />
      {usage.data && (
        <div className="overflow-x-auto rounded-xl ring-1 ring-slate-200">
          <table className="min-w-full text-left text-sm" data-testid="member-usage">
            <caption className="sr-only">Charged checks by member</caption>
            <thead className="bg-slate-50 text-xs uppercase tracking-wide text-slate-500">
              <tr>
                <th scope="col" className="px-3 py-2 font-semibold">
                  Member
                </th>
                <th scope="col" className="px-3 py-2 font-semibold">
                  Role
                </th>
                <th scope="col" className="px-3 py-2 text-right font-semibold">
                  Today
                </th>
                <th scope="col" className="px-3 py-2 font-semibold">
                  Daily cap
                </th>
                <th scope="col" className="px-3 py-2 text-right font-semibold">
                  This month
                </th>
                <th scope="col" className="px-3 py-2 font-semibold">
                  Monthly cap
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {members.map((m) => (
                <tr key={m.user_id} className={m.role === null ? 'text-slate-400' : undefined} data-member={m.email}>
                  <td className="px-3 py-2 font-medium">{m.email}</td>
                  <td className="px-3 py-2 capitalize">{m.role ?? 'former member'}</td>
                  <td className="px-3 py-2 text-right tabular-nums" data-testid="member-today">
                    {number(m.charged_today)}
                  </td>
                  <td className="whitespace-nowrap px-3 py-2" data-testid="member-day-cap">
                    {cap(m.charged_today, m.checks_per_day)}
                  </td>
                  <td className="px-3 py-2 text-right tabular-nums" data-testid="member-month">
                    {number(m.charged_this_month)}
                  </td>
                  <td className="whitespace-nowrap px-3 py-2" data-testid="member-month-cap">
                    {cap(m.charged_this_month, m.checks_per_month)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Card>
  );
}
