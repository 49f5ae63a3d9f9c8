'use client';

import { useState, type FormEvent } from 'react';
import { useApiKeys, useCreateApiKey, useRevokeApiKey } from '@/lib/client/hooks';
import { Button, Card, cx, Empty, ErrorNote, formatDate, inputClass, labelClass } from '../ui';
import { CopyButton } from './CopyButton';

export function ApiKeys() {
  const keys = useApiKeys();
  const create = useCreateApiKey();
  const revoke = useRevokeApiKey();
  const [name, setName] = useState('');

  function onCreate(event: FormEvent) {
    event.preventDefault();
    create.mutate(name.trim() || 'Untitled key', { onSuccess: () => setName('') });
  }

  return (
    <Card title="API keys" description="Send a key as Authorization: Bearer <key>. Add X-EV-Sandbox: true for simulated results.">
      <form onSubmit={onCreate} className="flex flex-wrap items-end gap-2">
        <div className="min-w-48 flex-1">
          <label htmlFor="key-name" className={labelClass}>
            Key name
          </label>
          <input id="key-name" value={name} onChange={(e) => setName(e.target.value)} placeholder="e.g. CRM import" className={inputClass} maxLength={100} />
        </div>
        <Button type="submit" disabled={create.isPending}>
          Create key
        </Button>
      </form>
      <div className="mt-4 space-y-4">
        <ErrorNote error={create.error ?? revoke.error ?? keys.error} />
        {create.data && (
          <div className="rounded-xl bg-emerald-50 p-4 ring-1 ring-emerald-200" role="status">
            <p className="text-sm font-semibold text-emerald-900">Your new key — copy it now, it will not be shown again.</p>
            <div className="mt-2 flex flex-wrap items-center gap-2">
              <code className="min-w-0 flex-1 break-all rounded-lg bg-white px-3 py-2 font-mono text-sm text-slate-900 ring-1 ring-emerald-200" data-testid="new-key">
                {create.data.key}
              </code>
              <CopyButton value={create.data.key} label="Copy key" />
              <Button variant="ghost" onClick={() => create.reset()}>
                Done
              </Button>
            </div>
          </div>
        )}
        {keys.data && keys.data.data.length === 0 && <Empty>No keys yet.</Empty>}
        {keys.data && keys.data.data.length > 0 && (
          <div className="overflow-x-auto rounded-xl ring-1 ring-slate-200">
            <table className="min-w-full text-left text-sm" data-testid="keys-table">
              <caption className="sr-only">API keys</caption>
              <thead className="bg-slate-50 text-xs uppercase tracking-wide text-slate-500">
                <tr>
                  <th scope="col" className="px-3 py-2 font-semibold">Name</th>
                  <th scope="col" className="px-3 py-2 font-semibold">Key</th>
                  <th scope="col" className="px-3 py-2 font-semibold">Created</th>
                  <th scope="col" className="px-3 py-2 font-semibold">Last used</th>
                  <th scope="col" className="px-3 py-2"><span className="sr-only">Actions</span></th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {keys.data.data.map((key) => (
                  <tr key={key.id} className={cx(key.revoked_at && 'text-slate-400')}>
                    <td className="px-3 py-2 font-medium">{key.name || 'Untitled key'}</td>
                    <td className="px-3 py-2 font-mono text-xs">{key.prefix}</td>
                    <td className="whitespace-nowrap px-3 py-2">{formatDate(key.created_at)}</td>
                    <td className="whitespace-nowrap px-3 py-2" data-testid="key-last-used">{key.last_used_at ? formatDate(key.last_used_at) : 'never'}</td>
                    <td className="px-3 py-2 text-right">
                      {key.revoked_at ? (
                        <span className="text-xs">revoked {formatDate(key.revoked_at)}</span>
                      ) : (
                        <Button
                          variant="danger"
                          className="py-1!"
                          aria-label={`Revoke key ${key.name || key.prefix}`}
                          disabled={revoke.isPending}
                          onClick={() => {
                            if (window.confirm(`Revoke ${key.name || key.prefix}? Programs using it stop working at once.`)) revoke.mutate(key.id);
                          }}
                        >
                          Revoke
                        </Button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </div>
    </Card>
  );
}
