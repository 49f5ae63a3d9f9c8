'use client';

import { SCOPES, type Scope } from '@/lib/accounts/scopes';
import type { ApiKey } from '@/lib/sdk/src/index';
import { inputClass, labelClass } from '../ui';
import type { KeyDraft } from './key-draft';

const SCOPE_HELP: Record<Scope, string> = {
  verify: 'single checks and lists',
  jobs: 'job status, downloads, cancel',
  history: 'past verifications',
  webhooks: 'webhook endpoints',
  rules: 'allow and block rules',
  keys: 'create and revoke keys',
  account: 'plan, usage, sessions',
};

export function KeyFields({ id, draft, publishable, onChange }: { id: string; draft: KeyDraft; publishable: boolean; onChange: (draft: KeyDraft) => void }) {
  const toggle = (scope: Scope, on: boolean) =>
    onChange({ ...draft, scopes: on ? SCOPES.filter((s) => s === scope || draft.scopes.includes(s)) : draft.scopes.filter((s) => s !== scope) });
  return (
    <div className="grid gap-3 sm:grid-cols-2">
      {publishable ? (
        <div className="sm:col-span-2">
          <label htmlFor={`${id}-origins`} className={labelClass}>
            Allowed origins
          </label>
          <input
            id={`${id}-origins`}
            value={draft.origins}
            onChange={(e) => onChange({ ...draft, origins: e.target.value })}
            placeholder="https://shop.example"
            className={inputClass}
            required
          />
        </div>
      ) : (
        <fieldset className="sm:col-span-2">
          <legend className={labelClass}>Scopes</legend>
          <div className="flex flex-wrap gap-x-4 gap-y-1">
            {SCOPES.map((scope) => (
              <label key={scope} className="flex items-center gap-1.5 text-sm text-slate-700" title={SCOPE_HELP[scope]}>
                <input type="checkbox" checked={draft.scopes.includes(scope)} onChange={(e) => toggle(scope, e.target.checked)} />
                {scope}
              </label>
            ))}
          </div>
        </fieldset>
      )}
      {publishable && (
        <div className="sm:col-span-2">
          <label htmlFor={`${id}-per-day`} className={labelClass}>
            Charged checks a day (optional)
          </label>
          <input
            id={`${id}-per-day`}
            type="number"
            min={1}
            step={1}
            value={draft.perDay}
            onChange={(e) => onChange({ ...draft, perDay: e.target.value })}
            placeholder="the installation's default"
            className={inputClass}
          />
          <p className="mt-1 text-xs text-slate-500">
            A page's key can be copied by any script: past this many charged checks in a UTC day it is refused until midnight UTC, and the widget lets forms
            through (or blocks them with data-fail=&quot;closed&quot;).
          </p>
        </div>
      )}
      <div>
        <label htmlFor={`${id}-ips`} className={labelClass}>
          Allowed IPs (optional)
        </label>
        <input
          id={`${id}-ips`}
          value={draft.ips}
          onChange={(e) => onChange({ ...draft, ips: e.target.value })}
          placeholder="203.0.113.0/24, 2001:db8::/32"
          className={inputClass}
        />
      </div>
      <div>
        <label htmlFor={`${id}-expires`} className={labelClass}>
          Expires (optional)
        </label>
        <input
          id={`${id}-expires`}
          type="date"
          value={draft.expires}
          onChange={(e) => onChange({ ...draft, expires: e.target.value })}
          className={inputClass}
        />
      </div>
    </div>
  );
}

/** One line of what a key may do and where: shown in the keys table. */
export function keySummary(key: ApiKey): string {
  const what =
    key.type === 'publishable'
      ? `publishable · ${key.allowed_origins?.join(', ')}`
      : key.scopes.length === SCOPES.length
        ? 'all scopes'
        : key.scopes.join(', ');
  const budget = key.rate_limits && `${key.rate_limits.checks_today} of ${key.rate_limits.checks_per_day} charged checks today`;
  return [what, budget, key.allowed_ips && `IPs ${key.allowed_ips.join(', ')}`].filter(Boolean).join(' · ');
}
