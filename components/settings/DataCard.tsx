'use client';

import { useState, type FormEvent } from 'react';
import { useEraseAddress, useRetention, useSetRetention } from '@/lib/client/data-hooks';
import { Button, Card, ErrorNote, inputClass, labelClass, linkButton, number } from '../ui';

/** Retention (how long lists, results and history are kept), erasure of one address and the export (docs/retention.md). */
export function DataCard() {
  const retention = useRetention();
  const save = useSetRetention();
  const erase = useEraseAddress();
  const [days, setDays] = useState('');
  const [email, setEmail] = useState('');
  const state = retention.data;

  function onSave(event: FormEvent) {
    event.preventDefault();
    save.mutate(days.trim() === '' ? null : Number(days), { onSuccess: () => setDays('') });
  }
  function onErase(event: FormEvent) {
    event.preventDefault();
    if (!window.confirm(`Erase ${email.trim()} from every list, result, history row, rule and stored answer of this account? This cannot be undone.`)) return;
    erase.mutate(email.trim(), { onSuccess: () => setEmail('') });
  }
  const removed = erase.data?.removed;

  return (
    <Card title="Your data" description="How long lists, results and history are kept; erase one address; take everything with you.">
      <form onSubmit={onSave} className="flex flex-wrap items-end gap-2" data-testid="retention-form">
        <div>
          <label htmlFor="retention-days" className={labelClass}>
            Keep data for (days)
          </label>
          <input
            id="retention-days"
            type="number"
            min={1}
            max={state?.max_days ?? undefined}
            value={days}
            onChange={(e) => setDays(e.target.value)}
            placeholder={state?.retention_days ? String(state.retention_days) : 'until deleted'}
            className={inputClass}
          />
        </div>
        <Button type="submit" variant="secondary" disabled={save.isPending}>
          Save
        </Button>
        {state && (
          <p className="text-sm text-slate-500" data-testid="retention-now">
            Now {state.retention_days === null ? 'kept until deleted' : `${state.retention_days} days`}
            {state.account_days === null ? ' (the default)' : ''}
            {state.max_days !== null ? `; this installation keeps data at most ${state.max_days} days` : ''}. Webhooks subscribed to list.expiring are told 7
            and 1 days before a list goes. Empty: the default.
          </p>
        )}
        <ErrorNote error={save.error ?? retention.error} />
      </form>
      <form onSubmit={onErase} className="mt-4 flex flex-wrap items-end gap-2 border-t border-slate-100 pt-4">
        <div className="min-w-64 flex-1">
          <label htmlFor="erase-email" className={labelClass}>
            Erase an address
          </label>
          <input
            id="erase-email"
            type="email"
            required
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            placeholder="someone@example.com"
            className={inputClass}
          />
        </div>
        <Button type="submit" variant="secondary" disabled={erase.isPending}>
          Erase
        </Button>
        {erase.data && removed && (
          <p role="status" className="w-full text-sm text-slate-600" data-testid="erased">
            Erased {erase.data.email}: {number(removed.results)} results, {number(removed.list_rows)} list rows, {number(removed.rules)} rules,{' '}
            {number(removed.idempotency_answers)} stored answers, {number(removed.webhook_deliveries)} webhook deliveries.
          </p>
        )}
        <ErrorNote error={erase.error} />
      </form>
      <div className="mt-4 flex flex-wrap items-center gap-2 border-t border-slate-100 pt-4">
        <a href="/v1/export" className={linkButton} download>
          Export all data (.zip)
        </a>
        <span className="text-sm text-slate-500">Lists, results, rules, keys (without secrets) and webhooks as CSV and JSON files.</span>
      </div>
    </Card>
  );
}
