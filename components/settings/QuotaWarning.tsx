'use client';

import { useState, type FormEvent } from 'react';
import { useQuota, useSetQuotaWarning } from '@/lib/client/rules-hooks';
import { Button, ErrorNote, inputClass, labelClass } from '../ui';

/** The quota.warning threshold (production only). */
export function QuotaWarningForm() {
  const quota = useQuota();
  const save = useSetQuotaWarning();
  const [value, setValue] = useState('');
  if (!quota.data) return null;
  function onSave(event: FormEvent) {
    event.preventDefault();
    save.mutate(value.trim() === '' ? null : Number(value), { onSuccess: () => setValue('') });
  }
  return (
    <form onSubmit={onSave} className="mt-4 flex flex-wrap items-end gap-2 border-t border-slate-100 pt-4">
      <div>
        <label htmlFor="warning-below" className={labelClass}>
          Warn when fewer checks are left than
        </label>
        <input
          id="warning-below"
          type="number"
          min={0}
          value={value}
          onChange={(e) => setValue(e.target.value)}
          placeholder={String(quota.data.warning_below)}
          className={inputClass}
        />
      </div>
      <Button type="submit" variant="secondary" disabled={save.isPending}>
        Save
      </Button>
      <p className="text-sm text-slate-500">
        Now {quota.data.warning_below}
        {quota.data.warning_below_is_default ? ' (the default)' : ''}; webhooks subscribed to quota.warning are told once per crossing. Empty: the default.
      </p>
      <ErrorNote error={save.error} />
    </form>
  );
}
