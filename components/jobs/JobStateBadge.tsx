import { cx } from '../ui';

const tones: Record<string, string> = {
  queued: 'bg-slate-100 text-slate-700',
  processing: 'bg-indigo-50 text-indigo-700',
  completed: 'bg-emerald-50 text-emerald-700',
  failed: 'bg-rose-50 text-rose-700',
  cancelled: 'bg-slate-100 text-slate-500',
};

export function JobStateBadge({ status }: { status: string }) {
  return (
    <span
      className={cx('inline-flex items-center gap-1.5 rounded-full px-2.5 py-0.5 text-xs font-semibold', tones[status] ?? tones.queued)}
      data-testid="job-state"
    >
      {status === 'processing' && <span aria-hidden className="h-1.5 w-1.5 animate-pulse rounded-full bg-indigo-500" />}
      {status}
    </span>
  );
}
