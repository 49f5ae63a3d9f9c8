'use client';

import { useSandbox } from '@/lib/client/sandbox';
import { useUsage } from '@/lib/client/rules-hooks';
import type { UsageRow } from '@/lib/sdk/src/rules-types';
import { Card, cx, ErrorNote, linkButton, number } from '../ui';
import { verdicts } from '../verdict';
import { QuotaWarningForm } from './QuotaWarning';
import { Can } from '../layout/Can';

const DAYS = 30;
const FILL = { deliverable: 'fill-emerald-500', undeliverable: 'fill-rose-500', risky: 'fill-amber-400', unknown: 'fill-slate-400' } as const;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The last 30 days of the current mode as bars stacked by verdict (plain SVG), with the CSV of both modes. */
export function UsageHistory() {
  const sandbox = useSandbox();
  const to = day(Date.now());
  const from = day(Date.now() - (DAYS - 1) * 86_400_000);
  const usage = useUsage(from, to);
  const rows = usage.data?.data.filter((row) => row.mode === (sandbox ? 'sandbox' : 'production')) ?? [];
  const total = (key: 'checks' | 'charged' | 'refunded') => rows.reduce((sum, row) => sum + row[key], 0);
  return (
    <Card
      title="Last 30 days"
      description={`${sandbox ? 'Sandbox' : 'Production'} checks per day (UTC), by verdict.`}
      actions={
        <a className={linkButton} href={`/v1/usage?format=csv&from=${from}&to=${to}`} download>
          Download CSV
        </a>
      }
    >
      <ErrorNote error={usage.error} />
      {usage.data && (
        <>
          <Bars rows={rows} />
          <p className="mt-3 text-sm text-slate-600" data-testid="usage-totals">
            {number(total('checks'))} checks · {number(total('charged'))} charged · {number(total('refunded'))} refunded
          </p>
          <Can role="admin">
            <QuotaWarningForm />
          </Can>
        </>
      )}
    </Card>
  );
}

function Bars({ rows }: { rows: UsageRow[] }) {
  const width = 600;
  const height = 160;
  const slot = width / Math.max(rows.length, 1);
  const most = Math.max(1, ...rows.map((row) => row.checks));
  return (
    <figure>
      <svg viewBox={`0 0 ${width} ${height}`} className="h-40 w-full" role="img" aria-labelledby="usage-chart-title" data-testid="usage-chart">
        <title id="usage-chart-title">Checks per day by verdict</title>
        {rows.map((row, i) => {
          let top = height;
          return (
            <g key={row.day} data-day={row.day}>
              <title>{`${row.day}: ${verdicts.map((v) => `${row[v.key]} ${v.label.toLowerCase()}`).join(', ')}`}</title>
              {verdicts.map((v) => {
                const h = (row[v.key] / most) * (height - 4);
                top -= h;
                return h > 0 ? (
                  <rect key={v.key} x={i * slot + 1} y={top} width={Math.max(slot - 2, 1)} height={h} className={FILL[v.key]} data-bucket={v.key} />
                ) : null;
              })}
            </g>
          );
        })}
      </svg>
      <figcaption className="mt-2 flex flex-wrap gap-4 text-xs text-slate-600">
        {verdicts.map((v) => (
          <span key={v.key} className="flex items-center gap-1.5">
            <span aria-hidden className={cx('h-2.5 w-2.5 rounded-full', v.color)} />
            {v.label} {number(rows.reduce((sum, row) => sum + row[v.key], 0))}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}
