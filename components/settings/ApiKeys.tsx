'use client';

import { Fragment, useState, type FormEvent } from 'react';
import type { ApiKey } from '@/lib/sdk/src/index';
import { useApiKeys, useCreateApiKey, useRevokeApiKey, useUpdateApiKey } from '@/lib/client/hooks';
import { Button, Card, cx, Empty, ErrorNote, formatDate, inputClass, labelClass } from '../ui';
import { CopyButton } from './CopyButton';
import { bodyOf, changesOf, draftOf, NEW_KEY, type KeyDraft } from './key-draft';
import { KeyFields, keySummary } from './KeyFields';

export function ApiKeys() {
  const keys = useApiKeys();
  const create = useCreateApiKey();
  const revoke = useRevokeApiKey();
  const [name, setName] = useState('');
  const [publishable, setPublishable] = useState(false);
  const [draft, setDraft] = useState<KeyDraft>(NEW_KEY);
  const [editing, setEditing] = useState<string | null>(null);

  function onCreate(event: FormEvent) {
    event.preventDefault();
    const body = { name: name.trim() || 'Untitled key', ...(publishable ? { type: 'publishable' as const } : {}), ...bodyOf(draft, publishable) };
    create.mutate(body, {
      onSuccess: () => {
        setName('');
        setDraft(NEW_KEY);
      },
    });
  }

  return (
    <Card
      title="API keys"
      description="Send a key as Authorization: Bearer <key>. Add X-EV-Sandbox: true for simulated results. A publishable key goes in a web page, for the form widget."
    >
      <form onSubmit={onCreate} className="space-y-3" aria-label="New API key">
        <div className="flex flex-wrap items-end gap-3">
          <div className="min-w-48 flex-1">
            <label htmlFor="key-name" className={labelClass}>
              Key name
            </label>
            <input id="key-name" value={name} onChange={(e) => setName(e.target.value)} placeholder="e.g. CRM import" className={inputClass} maxLength={100} />
          </div>
          <fieldset className="flex gap-3 text-sm text-slate-700">
            <legend className="sr-only">Key type</legend>
            <label className="flex items-center gap-1.5">
              <input type="radio" name="key-type" checked={!publishable} onChange={() => setPublishable(false)} /> Secret
            </label>
            <label className="flex items-center gap-1.5">
              <input type="radio" name="key-type" checked={publishable} onChange={() => setPublishable(true)} /> Publishable (web page)
            </label>
          </fieldset>
        </div>
        <KeyFields id="new-key" draft={draft} publishable={publishable} onChange={setDraft} />
        <Button type="submit" disabled={create.isPending || (!publishable && draft.scopes.length === 0)}>
          Create key
        </Button>
      </form>
      <div className="mt-4 space-y-4">
        <ErrorNote error={create.error ?? revoke.error ?? keys.error} />
        {create.data && (
          <div className="rounded-xl bg-emerald-50 p-4 ring-1 ring-emerald-200" role="status">
            <p className="text-sm font-semibold text-emerald-900">
              {create.data.type === 'publishable'
                ? 'Your publishable key: it may be shown in your pages (docs/integrations.md).'
                : 'Your new key — copy it now, it will not be shown again.'}
            </p>
            <div className="mt-2 flex flex-wrap items-center gap-2">
              <code
                className="min-w-0 flex-1 break-all rounded-lg bg-white px-3 py-2 font-mono text-sm text-slate-900 ring-1 ring-emerald-200"
                data-testid="new-key"
              >
                {create.data.key}
              </code>
              <CopyButton value={create.data.key} label="Copy key" />
              <Button variant="ghost" onClick={() => create.reset()}>
                Done
              </Button>
            </div>
          </div>
        )}
        {keys.data && keys.data.length === 0 && <Empty>No keys yet.</Empty>}
        {keys.data && keys.data.length > 0 && (
          <div className="overflow-x-auto rounded-xl ring-1 ring-slate-200">
            <table className="min-w-full text-left text-sm" data-testid="keys-table">
              <caption className="sr-only">API keys</caption>
              <thead className="bg-slate-50 text-xs uppercase tracking-wide text-slate-500">
                <tr>
                  <th scope="col" className="px-3 py-2 font-semibold">
                    Name
                  </th>
                  <th scope="col" className="px-3 py-2 font-semibold">
                    Key
                  </th>
                  <th scope="col" className="px-3 py-2 font-semibold">
                    May do
                  </th>
                  <th scope="col" className="px-3 py-2 font-semibold">
                    Expires
                  </th>
                  <th scope="col" className="px-3 py-2 font-semibold">
                    Last used
                  </th>
                  <th scope="col" className="px-3 py-2">
                    <span className="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {keys.data.map((key) => (
                  <Fragment key={key.id}>
                    <tr className={cx(key.revoked_at && 'text-slate-400')}>
                      <td className="px-3 py-2 font-medium">{key.name || 'Untitled key'}</td>
                      <td className="px-3 py-2 font-mono text-xs">{key.prefix}</td>
                      <td className="px-3 py-2" data-testid="key-scopes">
                        {keySummary(key)}
                      </td>
                      <td className="whitespace-nowrap px-3 py-2">{key.expires_at ? formatDate(key.expires_at) : 'never'}</td>
                      <td className="whitespace-nowrap px-3 py-2" data-testid="key-last-used">
                        {key.last_used_at ? formatDate(key.last_used_at) : 'never'}
                      </td>
                      <td className="whitespace-nowrap px-3 py-2 text-right">
                        {key.revoked_at ? (
                          <span className="text-xs">revoked {formatDate(key.revoked_at)}</span>
                        ) : (
                          <span className="inline-flex gap-2">
                            <Button
                              variant="ghost"
                              className="py-1!"
                              aria-expanded={editing === key.id}
                              aria-label={`Edit key ${key.name || key.prefix}`}
                              onClick={() => setEditing(editing === key.id ? null : key.id)}
                            >
                              Edit
                            </Button>
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
                          </span>
                        )}
                      </td>
                    </tr>
                    {editing === key.id && (
                      <tr>
                        <td colSpan={6} className="bg-slate-50 px-3 py-3">
                          <EditKey apiKey={key} onDone={() => setEditing(null)} />
                        </td>
                      </tr>
                    )}
                  </Fragment>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </div>
    </Card>
  );
}

function EditKey({ apiKey, onDone }: { apiKey: ApiKey; onDone: () => void }) {
  const update = useUpdateApiKey();
  const [before] = useState(() => draftOf(apiKey));
  const [draft, setDraft] = useState(before);
  const publishable = apiKey.type === 'publishable';
  function onSave(event: FormEvent) {
    event.preventDefault();
    update.mutate({ id: apiKey.id, ...changesOf(draft, publishable, before) }, { onSuccess: onDone });
  }
  return (
    <form onSubmit={onSave} className="space-y-3" aria-label={`Edit key ${apiKey.name || apiKey.prefix}`}>
      <KeyFields id={`edit-${apiKey.id}`} draft={draft} publishable={publishable} onChange={setDraft} />
      <ErrorNote error={update.error} />
      <div className="flex gap-2">
        <Button type="submit" disabled={update.isPending || (!publishable && draft.scopes.length === 0)}>
          Save
        </Button>
        <Button type="button" variant="ghost" onClick={onDone}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
