'use client';

import { useState, type FormEvent } from 'react';
import { AUDIT_ACTIONS } from '@/lib/audit/actions';
import { useAuditPage } from '@/lib/client/audit-hooks';
import type { AuditAction, AuditEvent, AuditFilter } from '@/lib/sdk/src/index';
import { Button, Card, DataTable, ErrorNote, formatDate, inputClass, labelClass, linkButton, selectClass } from '../ui';

/** A datetime-local field's value (the browser's local time) as an ISO time, or undefined. */
const isoOf = (local: string) => (local ? new Date(local).toISOString() : undefined);

function actorOf(row: AuditEvent): string {
  const who = row.actor.email ?? row.actor.user_id ?? (row.method && row.method !== 'session' && row.method !== 'key' ? row.method : '—');
  return row.actor.key_id ? `${who} (key ${row.actor.key_id})` : who;
}

function detailsOf(row: AuditEvent): string {
  if (!row.details) return '';
  return Object.entries(row.details)
    .map(([name, value]) => `${name.replaceAll('_', ' ')}: ${value === null ? '—' : String(value)}`)
    .join(', ');
}

/** The organisation's audit log: who did what, when and from where; filtered by action, actor and time, paged by cursor, downloadable as CSV. */
export function AuditLog() {
  const [form, setForm] = useState({ action: '', actor: '', from: '', to: '' });
  const [filter, setFilter] = useState<AuditFilter>({});
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const page = useAuditPage({ ...filter, cursor: cursors[cursors.length - 1] });
  const rows = page.data?.data ?? [];
  const csv = new URLSearchParams({ format: 'csv', ...Object.fromEntries(Object.entries(filter).filter(([, v]) => v)) });

  function onFilter(event: FormEvent) {
    event.preventDefault();
    setFilter({
      action: (form.action || undefined) as AuditAction | undefined,
      actor: form.actor.trim() || undefined,
      from: isoOf(form.from),
      to: isoOf(form.to),
    });
    setCursors([undefined]);
  }

  return (
    <Card
      title="Audit log"
      description="Sign-ins, members, keys, webhooks, rules, lists, credits, settings and erasures: who, when, from where. Rows are never changed."
      actions={
        <a className={linkButton} href={`/v1/audit?${csv}`} download data-testid="audit-csv">
          Download CSV
        </a>
      }
    >
      <form onSubmit={onFilter} className="mb-4 flex flex-wrap items-end gap-3" aria-label="Filter the audit log">
        <div>
          <label htmlFor="audit-action" className={labelClass}>
            Action
          </label>
          <select id="audit-action" value={form.action} onChange={(e) => setForm({ ...form, action: e.target.value })} className={selectClass}>
            <option value="">Every action</option>
            {AUDIT_ACTIONS.map((action) => (
              <option key={action} value={action}>
                {action}
              </option>
            ))}
          </select>
        </div>
        <div className="min-w-56 flex-1">
          <label htmlFor="audit-actor" className={labelClass}>
            Actor
          </label>
          <input
            id="audit-actor"
            value={form.actor}
            onChange={(e) => setForm({ ...form, actor: e.target.value })}
            placeholder="a user id or key id"
            className={inputClass}
          />
        </div>
        <div>
          <label htmlFor="audit-from" className={labelClass}>
            From
          </label>
          <input id="audit-from" type="datetime-local" value={form.from} onChange={(e) => setForm({ ...form, from: e.target.value })} className={inputClass} />
        </div>
        <div>
          <label htmlFor="audit-to" className={labelClass}>
            To
          </label>
          <input id="audit-to" type="datetime-local" value={form.to} onChange={(e) => setForm({ ...form, to: e.target.value })} className={inputClass} />
        </div>
        <Button type="submit" variant="secondary">
          Filter
        </Button>
      </form>
      <ErrorNote error={page.error} />
      <DataTable
        caption="Audit log"
        testId="audit-table"
        columns={[{ label: 'When' }, { label: 'Action' }, { label: 'Actor' }, { label: 'Target' }, { label: 'Address' }, { label: 'Details' }]}
        dimmed={page.isPlaceholderData}
        empty={rows.length === 0 && !page.isPending && !page.error ? 'Nothing recorded for this filter.' : null}
      >
        {rows.map((row) => (
          <tr key={row.id}>
            <td className="whitespace-nowrap px-3 py-2 text-slate-500">{formatDate(row.at)}</td>
            <td className="whitespace-nowrap px-3 py-2 font-medium text-slate-900">{row.action}</td>
            <td className="max-w-64 truncate px-3 py-2 text-slate-700" title={row.actor.user_id ?? undefined}>
              {actorOf(row)}
            </td>
            <td className="max-w-64 truncate px-3 py-2 text-slate-700" title={row.target.id ?? undefined}>
              {row.target.label ?? row.target.id ?? row.target.type ?? ''}
            </td>
            <td className="whitespace-nowrap px-3 py-2 text-slate-500">{row.client_address ?? '—'}</td>
            <td className="px-3 py-2 text-slate-500">{detailsOf(row)}</td>
          </tr>
        ))}
      </DataTable>
      <div className="mt-4 flex justify-end gap-2">
        <Button variant="secondary" disabled={cursors.length === 1} onClick={() => setCursors((c) => c.slice(0, -1))}>
          Newer
        </Button>
        <Button variant="secondary" disabled={!page.data?.next_cursor} onClick={() => setCursors((c) => [...c, page.data?.next_cursor ?? undefined])}>
          Older
        </Button>
      </div>
    </Card>
  );
}
