'use client';

import Link from 'next/link';
import { useState, type FormEvent } from 'react';
import { useHistory, type HistoryQuery } from '@/lib/client/hooks';
import { Button, Card, DataTable, ErrorNote, formatDate, inputClass, labelClass, selectClass } from '../ui';
import { RiskBadge, StatusBadge } from '../verdict';

type Mode = '' | 'true' | 'false';

/** Past verifications, newest first; searchable by exact address, filtered by mode, paged by cursor. */
export function HistoryTable() {
  const [search, setSearch] = useState('');
  const [email, setEmail] = useState('');
  const [mode, setMode] = useState<Mode>('');
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const query: HistoryQuery = { email: email || undefined, sandbox: mode ? mode === 'true' : undefined, cursor: cursors[cursors.length - 1] };
  const history = useHistory(query);
  const rows = history.data?.data ?? [];

  function onSearch(event: FormEvent) {
    event.preventDefault();
    setEmail(search.trim().toLowerCase());
    setCursors([undefined]);
  }

  return (
    <Card>
      <div className="mb-4 flex flex-wrap items-end gap-3">
        {/* biome-ignore lint/a11y/useSemanticElements: the form is the search landmark; <search> is not in every browser the dashboard supports */}
        <form onSubmit={onSearch} role="search" className="flex min-w-64 flex-1 items-end gap-2">
          <div className="flex-1">
            <label htmlFor="history-search" className={labelClass}>
              Address
            </label>
            <input
              id="history-search"
              type="search"
              value={search}
              onChange={(e) => setSearch(e.target.value)}
              placeholder="exact address, e.g. jane@example.com"
              className={inputClass}
            />
          </div>
          <Button type="submit" variant="secondary">
            Search
          </Button>
          {email && (
            <Button
              variant="ghost"
              onClick={() => {
                setSearch('');
                setEmail('');
                setCursors([undefined]);
              }}
            >
              Clear
            </Button>
          )}
        </form>
        <div>
          <label htmlFor="history-mode" className={labelClass}>
            Mode
          </label>
          <select
            id="history-mode"
            value={mode}
            onChange={(e) => {
              setMode(e.target.value as Mode);
              setCursors([undefined]);
            }}
            className={selectClass}
          >
            <option value="">Current mode</option>
            <option value="false">Live</option>
            <option value="true">Sandbox</option>
          </select>
        </div>
      </div>
      <ErrorNote error={history.error} />
      <DataTable
        caption="Verification history"
        testId="history-table"
        columns={[{ label: 'Email' }, { label: 'Status' }, { label: 'Risk' }, { label: 'Source' }, { label: 'When' }]}
        dimmed={history.isPlaceholderData}
        empty={rows.length === 0 && !history.isPending ? (email ? `Nothing found for ${email}.` : 'No verifications yet.') : null}
      >
        {rows.map((row) => (
          <tr key={row.id}>
            <td className="max-w-72 truncate px-3 py-2 font-medium text-slate-900">
              {row.email}
              {row.sandbox && <span className="ml-2 rounded bg-amber-100 px-1.5 py-0.5 text-xs font-semibold text-amber-800">sandbox</span>}
            </td>
            <td className="px-3 py-2">
              <StatusBadge status={row.status} deliverable={row.deliverable} />
            </td>
            <td className="px-3 py-2">
              <RiskBadge risk={row.risk_level} />
            </td>
            <td className="px-3 py-2 text-slate-600">
              {row.source === 'bulk' && row.job_id ? (
                <Link href={`/jobs/${row.job_id}`} className="text-indigo-600 hover:text-indigo-500">
                  list job
                </Link>
              ) : (
                'single check'
              )}
            </td>
            <td className="whitespace-nowrap px-3 py-2 text-slate-500">{formatDate(row.created_at)}</td>
          </tr>
        ))}
      </DataTable>
      <div className="mt-4 flex justify-end gap-2">
        <Button variant="secondary" disabled={cursors.length === 1} onClick={() => setCursors((c) => c.slice(0, -1))}>
          Newer
        </Button>
        <Button variant="secondary" disabled={!history.data?.next_cursor} onClick={() => setCursors((c) => [...c, history.data?.next_cursor ?? undefined])}>
          Older
        </Button>
      </div>
    </Card>
  );
}
