import type { JobSummary, ProviderCounts } from '@/lib/sdk/src/index';
import { number } from '../ui';

const PROVIDERS: { key: keyof ProviderCounts; label: string }[] = [
  { key: 'google', label: 'Google' },
  { key: 'microsoft', label: 'Microsoft' },
  { key: 'yahoo', label: 'Yahoo' },
  { key: 'other', label: 'Others' },
];

/**
 * List quality: the share of the distinct addresses that are safe to send (deliverable), the figure
 * a sender's reputation follows; then duplicates, and which mail providers the list reaches.
 */
export function ListInsights({ summary, providers }: { summary: JobSummary; providers: ProviderCounts }) {
  const distinct = summary.total - (summary.duplicates ?? 0);
  const quality = distinct > 0 ? Math.round((summary.deliverable / distinct) * 100) : 0;
  const reached = PROVIDERS.reduce((sum, p) => sum + providers[p.key], 0) || 1;
  return (
    <div className="mt-5 grid gap-3 sm:grid-cols-3">
      <div className="rounded-xl bg-slate-50 px-4 py-3 ring-1 ring-slate-200">
        <p className="text-sm text-slate-600">List quality</p>
        <p className="mt-1 text-2xl font-bold tabular-nums text-slate-900" data-testid="list-quality">
          {quality}%
        </p>
        <p className="text-xs text-slate-500">of {number(distinct)} distinct addresses are safe to send</p>
      </div>
      <div className="rounded-xl bg-slate-50 px-4 py-3 ring-1 ring-slate-200">
        <p className="text-sm text-slate-600">Duplicates</p>
        <p className="mt-1 text-2xl font-bold tabular-nums text-slate-900" data-testid="summary-duplicates">
          {number(summary.duplicates ?? 0)}
        </p>
        <p className="text-xs text-slate-500">rows checked and charged once, kept in the download</p>
      </div>
      <div className="rounded-xl bg-slate-50 px-4 py-3 ring-1 ring-slate-200">
        <p className="text-sm text-slate-600">Mail providers</p>
        <ul className="mt-1 space-y-0.5 text-sm" data-testid="providers">
          {PROVIDERS.map((p) => (
            <li key={p.key} className="flex justify-between gap-2">
              <span className="text-slate-700">{p.label}</span>
              <span className="tabular-nums text-slate-900">
                {number(providers[p.key])} <span className="text-slate-500">({Math.round((providers[p.key] / reached) * 100)}%)</span>
              </span>
            </li>
          ))}
        </ul>
      </div>
    </div>
  );
}
