import { bucketOf as statusBucket, type Bucket } from '@/lib/verifier/vocabulary';
import { cx } from '../ui';

// Four buckets the summary, filters and downloads share; the API's finer statuses fold into them.
export const verdicts = [
  { key: 'deliverable', label: 'Deliverable', color: 'bg-emerald-500', text: 'text-emerald-700', soft: 'bg-emerald-50 text-emerald-700 ring-emerald-600/20' },
  { key: 'undeliverable', label: 'Undeliverable', color: 'bg-rose-500', text: 'text-rose-700', soft: 'bg-rose-50 text-rose-700 ring-rose-600/20' },
  { key: 'risky', label: 'Risky', color: 'bg-amber-400', text: 'text-amber-700', soft: 'bg-amber-50 text-amber-800 ring-amber-600/20' },
  { key: 'unknown', label: 'Unknown', color: 'bg-slate-400', text: 'text-slate-600', soft: 'bg-slate-100 text-slate-700 ring-slate-500/20' },
] as const satisfies readonly { key: Bucket; label: string; color: string; text: string; soft: string }[];

export type VerdictKey = Bucket;

/** The API's bucket of a status (lib/verifier/vocabulary.ts); a result without a status by its `deliverable` flag. */
export function bucketOf(status: string | undefined, deliverable?: boolean): VerdictKey {
  return status ? statusBucket(status) : deliverable ? 'deliverable' : 'unknown';
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
