'use client';

import { useState, type FormEvent } from 'react';
import { useCreateWebhook, useDeleteWebhook, useDeliveries, useTestWebhook, useWebhooks } from '@/lib/client/hooks';
import type { Webhook } from '@/lib/sdk/src/index';
import { JOB_EVENTS, LIST_EVENTS, QUOTA_EVENTS, type WebhookEvent } from '@/lib/webhooks/events';
import { Button, Card, cx, Empty, ErrorNote, formatDate, inputClass, labelClass } from '../ui';
import { CopyButton } from './CopyButton';

export function Webhooks() {
  const webhooks = useWebhooks();
  const create = useCreateWebhook();
  const [url, setUrl] = useState('');
  const [quotaEvents, setQuotaEvents] = useState(false);
  const [listEvents, setListEvents] = useState(false);

  function onAdd(event: FormEvent) {
    event.preventDefault();
    // quota events only when asked for: an endpoint built for job events is not sent new kinds (docs/rules-and-usage.md)
    const chosen: WebhookEvent[] = [...JOB_EVENTS, ...(quotaEvents ? QUOTA_EVENTS : []), ...(listEvents ? LIST_EVENTS : [])];
    const events: WebhookEvent[] | undefined = quotaEvents || listEvents ? chosen : undefined;
    create.mutate({ url: url.trim(), events }, { onSuccess: () => setUrl('') });
  }

  return (
    <Card
      title="Webhooks"
      description="Called when a list job completes or fails (and, if ticked, when the quota runs low or out, when a list is about to be deleted by retention, or when a monitored list's verdicts change). Deliveries are signed (Standard Webhooks) and retried for a day."
    >
      <form onSubmit={onAdd} className="flex flex-wrap items-end gap-2">
        <div className="min-w-64 flex-1">
          <label htmlFor="webhook-url" className={labelClass}>
            Endpoint URL
          </label>
          <input
            id="webhook-url"
            type="url"
            required
            value={url}
            onChange={(e) => setUrl(e.target.value)}
            placeholder="https://example.com/hooks/verifier"
            className={inputClass}
          />
        </div>
        <label className="flex items-center gap-2 py-2 text-sm text-slate-700">
          <input type="checkbox" checked={quotaEvents} onChange={(e) => setQuotaEvents(e.target.checked)} />
          Quota events too
        </label>
        <label className="flex items-center gap-2 py-2 text-sm text-slate-700">
          <input type="checkbox" checked={listEvents} onChange={(e) => setListEvents(e.target.checked)} />
          List events (about to expire, monitored changes)
        </label>
        <Button type="submit" disabled={create.isPending}>
          Add webhook
        </Button>
      </form>
      <div className="mt-4 space-y-4">
        <ErrorNote error={create.error ?? webhooks.error} />
        {create.data?.secret && (
          <div className="rounded-xl bg-emerald-50 p-4 ring-1 ring-emerald-200" role="status">
            <p className="text-sm font-semibold text-emerald-900">Signing secret for {create.data.url} — shown once.</p>
            <div className="mt-2 flex flex-wrap items-center gap-2">
              <code className="min-w-0 flex-1 break-all rounded-lg bg-white px-3 py-2 font-mono text-sm ring-1 ring-emerald-200">{create.data.secret}</code>
              <CopyButton value={create.data.secret} label="Copy secret" />
              <Button variant="ghost" onClick={() => create.reset()}>
                Done
              </Button>
            </div>
          </div>
        )}
        {webhooks.data?.length === 0 && <Empty>No webhooks yet.</Empty>}
        <ul className="space-y-3">
          {webhooks.data?.map((hook) => (
            <WebhookItem key={hook.id} hook={hook} />
          ))}
        </ul>
      </div>
    </Card>
  );
}

function WebhookItem({ hook }: { hook: Webhook }) {
  const test = useTestWebhook();
  const remove = useDeleteWebhook();
  const deliveries = useDeliveries(hook.id);
  return (
    <li className="rounded-xl ring-1 ring-slate-200" data-testid="webhook">
      <div className="flex flex-wrap items-center justify-between gap-3 border-b border-slate-100 px-4 py-3">
        <div className="min-w-0">
          <p className="truncate font-mono text-sm font-medium text-slate-900">{hook.url}</p>
          <p className="text-xs text-slate-500">
            {hook.events.join(', ')} · added {formatDate(hook.created_at)}
          </p>
        </div>
        <div className="flex gap-2">
          <Button variant="secondary" onClick={() => test.mutate(hook.id)} disabled={test.isPending}>
            {test.isPending ? 'Sending…' : 'Send test event'}
          </Button>
          <Button
            variant="danger"
            aria-label={`Remove webhook ${hook.url}`}
            onClick={() => window.confirm(`Remove the webhook ${hook.url}?`) && remove.mutate(hook.id)}
          >
            Remove
          </Button>
        </div>
      </div>
      <div className="px-4 py-3">
        <ErrorNote error={test.error ?? remove.error ?? deliveries.error} />
        <h3 className="mb-2 text-xs font-semibold uppercase tracking-wide text-slate-500">Recent deliveries</h3>
        {deliveries.data?.length ? (
          <table className="w-full text-left text-sm" data-testid="deliveries">
            <caption className="sr-only">Recent deliveries to {hook.url}</caption>
            <thead className="text-xs text-slate-500">
              <tr>
                <th scope="col" className="py-1 font-medium">
                  Event
                </th>
                <th scope="col" className="py-1 font-medium">
                  State
                </th>
                <th scope="col" className="py-1 font-medium">
                  HTTP
                </th>
                <th scope="col" className="hidden py-1 font-medium sm:table-cell">
                  Attempts
                </th>
                <th scope="col" className="py-1 font-medium">
                  When
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {deliveries.data.slice(0, 10).map((d) => (
                <tr key={d.id}>
                  <td className="py-1.5 font-mono text-xs">{d.event_type}</td>
                  <td className="py-1.5 text-xs">{d.state}</td>
                  <td className="py-1.5">
                    <span
                      title={d.last_error ?? undefined}
                      className={cx(
                        'rounded px-1.5 py-0.5 font-mono text-xs font-semibold',
                        d.last_status && d.last_status < 300
                          ? 'bg-emerald-50 text-emerald-700'
                          : d.last_status
                            ? 'bg-rose-50 text-rose-700'
                            : 'bg-slate-100 text-slate-500',
                      )}
                      data-testid="delivery-status"
                    >
                      {d.last_status ?? (d.last_error ? 'error' : '…')}
                    </span>
                  </td>
                  <td className="hidden py-1.5 text-xs sm:table-cell">{d.attempts}</td>
                  <td className="whitespace-nowrap py-1.5 text-xs text-slate-500">{formatDate(d.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <p className="text-sm text-slate-500">No deliveries yet. Send a test event to try the endpoint.</p>
        )}
      </div>
    </li>
  );
}
