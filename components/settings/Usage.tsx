'use client';

import { useAccount } from '@/lib/client/hooks';
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
