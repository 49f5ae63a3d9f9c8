import type { JobSummary } from '@/lib/sdk/src/index';
import { cx, number } from '../ui';
import { verdicts } from '../verdict';

/** The four verdicts as one stacked bar with a legend; the legend carries the numbers for screen readers. */
export function SummaryChart({ summary }: { summary: JobSummary }) {
  const total = verdicts.reduce((sum, v) => sum + (summary[v.key] ?? 0), 0) || 1;
  return (
    <figure>
      <div className="flex h-4 w-full overflow-hidden rounded-full bg-slate-100" aria-hidden>
        {verdicts.map((v) =>
          summary[v.key] ? (
            <div
              key={v.key}
              className={cx(v.color, 'h-full')}
              style={{ width: `${(summary[v.key] / total) * 100}%` }}
              title={`${v.label}: ${summary[v.key]}`}
            />
          ) : null,
        )}
      </div>
      <figcaption className="sr-only">Verdicts of {number(summary.total)} addresses</figcaption>
      <dl className="mt-5 grid grid-cols-2 gap-3 lg:grid-cols-4">
        {verdicts.map((v) => (
          <div key={v.key} className="rounded-xl bg-slate-50 px-4 py-3 ring-1 ring-slate-200" data-testid={`summary-${v.key}`}>
            <dt className="flex items-center gap-2 text-sm text-slate-600">
              <span aria-hidden className={cx('h-2.5 w-2.5 rounded-full', v.color)} />
              {v.label}
            </dt>
            <dd className="mt-1 flex items-baseline gap-2">
              <span className={cx('text-2xl font-bold tabular-nums', v.text)} data-testid="count">
                {number(summary[v.key])}
              </span>
              <span className="text-sm text-slate-500">{Math.round(((summary[v.key] ?? 0) / total) * 100)}%</span>
            </dd>
          </div>
        ))}
      </dl>
    </figure>
  );
}
