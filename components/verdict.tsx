import { cx } from './ui';

// Four buckets the summary, filters and downloads share; the API's finer statuses fold into them.
export const verdicts = [
  { key: 'deliverable', label: 'Deliverable', color: 'bg-emerald-500', text: 'text-emerald-700', soft: 'bg-emerald-50 text-emerald-700 ring-emerald-600/20' },
  { key: 'undeliverable', label: 'Undeliverable', color: 'bg-rose-500', text: 'text-rose-700', soft: 'bg-rose-50 text-rose-700 ring-rose-600/20' },
  { key: 'risky', label: 'Risky', color: 'bg-amber-400', text: 'text-amber-700', soft: 'bg-amber-50 text-amber-800 ring-amber-600/20' },
  { key: 'unknown', label: 'Unknown', color: 'bg-slate-400', text: 'text-slate-600', soft: 'bg-slate-100 text-slate-700 ring-slate-500/20' },
] as const;

export type VerdictKey = (typeof verdicts)[number]['key'];

/** Same buckets as the API's summary and download filter: anything not clearly good, bad or unknown is risky. */
export function bucketOf(status: string | undefined, deliverable?: boolean): VerdictKey {
  if (!status) return deliverable ? 'deliverable' : 'unknown';
  if (status === 'deliverable' || status === 'undeliverable' || status === 'unknown') return status;
  return 'risky';
}

export function StatusBadge({ status, deliverable }: { status?: string; deliverable?: boolean }) {
  const verdict = verdicts.find((v) => v.key === bucketOf(status, deliverable))!;
  return (
    <span className={cx('inline-flex items-center gap-1.5 rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset whitespace-nowrap', verdict.soft)}>
      <span aria-hidden className={cx('h-1.5 w-1.5 rounded-full', verdict.color)} />
      {status ?? verdict.label.toLowerCase()}
    </span>
  );
}

export function RiskBadge({ risk }: { risk: string }) {
  const tone = risk === 'low' ? 'text-emerald-700' : risk === 'medium' ? 'text-amber-700' : risk === 'high' ? 'text-rose-700' : 'text-slate-500';
  return <span className={cx('text-xs font-medium', tone)}>{risk}</span>;
}
