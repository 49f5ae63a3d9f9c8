'use client';

import { useState } from 'react';
import { useJobResults } from '@/lib/client/hooks';
import type { Bucket } from '@/lib/sdk/src/index';
import { Button, DataTable, ErrorNote, cx, formatDate, number } from '../ui';
import { RiskBadge, StatusBadge, verdicts } from '../verdict';

const PAGE_SIZE = 25;

export function ResultsTable({ jobId }: { jobId: string }) {
  const [filter, setFilter] = useState<Bucket | undefined>();
  const [offset, setOffset] = useState(0);
  const results = useJobResults(jobId, { limit: PAGE_SIZE, offset, filter }, true);
  const rows = results.data?.data?.results ?? [];
  const total = results.data?.data?.results_total ?? rows.length;

  function choose(next: Bucket | undefined) {
    setFilter(next);
    setOffset(0);
  }

  return (
    <div className="space-y-4">
      {/* biome-ignore lint/a11y/useSemanticElements: toggle buttons, not form fields: a fieldset would say otherwise */}
      <div role="group" aria-label="Filter results by verdict" className="flex flex-wrap gap-2">
        {[{ key: undefined, label: 'All' }, ...verdicts].map((option) => (
          <button
            key={option.label}
            type="button"
            aria-pressed={filter === option.key}
            onClick={() => choose(option.key)}
            className={cx(
              'rounded-full px-3 py-1 text-sm font-medium ring-1 ring-inset focus-visible:outline-2 focus-visible:outline-indigo-600',
              filter === option.key ? 'bg-indigo-600 text-white ring-indigo-600' : 'bg-white text-slate-600 ring-slate-300 hover:bg-slate-50',
            )}
          >
            {option.label}
          </button>
        ))}
      </div>
      <ErrorNote error={results.error} />
      <DataTable
        caption={`Results${filter ? `, ${filter} only` : ''}`}
        testId="results-table"
        columns={[
          { label: 'Email' },
          { label: 'Status' },
          { label: 'Risk' },
          { label: 'Reason' },
          { label: 'Score', className: 'text-right' },
          { label: 'Checked' },
        ]}
        dimmed={results.isPlaceholderData}
        empty={rows.length === 0 && !results.isPending ? `No results${filter ? ` marked ${filter}` : ''}.` : null}
      >
        {rows.map((row, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a list can hold an address twice: its row number is part of its identity
          <tr key={`${row.email}-${index}`}>
            <td className="max-w-72 truncate px-3 py-2 font-medium text-slate-900">{row.email}</td>
            <td className="px-3 py-2">
              <StatusBadge status={row.status} deliverable={row.deliverable} />
            </td>
            <td className="px-3 py-2">
              <RiskBadge risk={row.risk_level} />
            </td>
            <td className="px-3 py-2 text-slate-600">{row.reason.replaceAll('_', ' ')}</td>
            <td className="px-3 py-2 text-right tabular-nums text-slate-700">{row.score ?? '—'}</td>
            <td
              className="whitespace-nowrap px-3 py-2 text-slate-600"
              title={row.reused ? 'Answered from an earlier check within your freshness window: not charged' : undefined}
            >
              {formatDate(row.checked_at)}
              {row.reused && <span className="ml-1 text-xs text-slate-500">(reused)</span>}
            </td>
          </tr>
        ))}
      </DataTable>
      <div className="flex flex-wrap items-center justify-between gap-3 text-sm text-slate-600">
        <span aria-live="polite">
          {total === 0 ? 'No rows' : `Rows ${number(offset + 1)}–${number(Math.min(offset + PAGE_SIZE, total))} of ${number(total)}`}
        </span>
        <div className="flex gap-2">
          <Button variant="secondary" disabled={offset === 0} onClick={() => setOffset((o) => Math.max(0, o - PAGE_SIZE))}>
            Previous
          </Button>
          <Button variant="secondary" disabled={offset + PAGE_SIZE >= total} onClick={() => setOffset((o) => o + PAGE_SIZE)}>
            Next
          </Button>
        </div>
      </div>
    </div>
  );
}
