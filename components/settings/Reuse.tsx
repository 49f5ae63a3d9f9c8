'use client';

import { useState, type FormEvent } from 'react';
import { useReuse, useSetReuse } from '@/lib/client/monitor-hooks';
import { useCan } from '@/lib/client/team-hooks';
import { Button, Card, ErrorNote, inputClass, labelClass } from '../ui';

/** The reuse of fresh results (docs/lists.md, "Reuse of fresh results"): off, or a window in days. */
export function ReuseCard() {
  const reuse = useReuse();
  const save = useSetReuse();
  const [days, setDays] = useState('');
  const canEdit = useCan('admin');

  function onSave(event: FormEvent) {
    event.preventDefault();
    save.mutate(Number(days || reuse.data?.days || 7), { onSuccess: () => setDays('') });
  }

  return (
    <Card
      title="Reuse fresh results"
      description="An address of a list that you verified within the window is answered from that result, marked as reused with its date, and not charged again. Monitors always check again."
    >
      {reuse.data && (
        <form onSubmit={onSave} className="flex flex-wrap items-end gap-2" data-testid="reuse-form">
          {canEdit && (
            <>
              <div>
                <label htmlFor="reuse-days" className={labelClass}>
                  Freshness window (days)
                </label>
                <input
                  id="reuse-days"
                  type="number"
                  min={1}
                  max={365}
                  value={days}
                  onChange={(e) => setDays(e.target.value)}
                  placeholder={String(reuse.data.days ?? 7)}
                  className={inputClass}
                />
              </div>
              <Button type="submit" variant="secondary" disabled={save.isPending}>
                {reuse.data.enabled ? 'Save' : 'Turn on'}
              </Button>
              {reuse.data.enabled && (
                <Button type="button" variant="ghost" disabled={save.isPending} onClick={() => save.mutate(null)}>
                  Turn off
                </Button>
              )}
            </>
          )}
          <p className="text-sm text-slate-500" role="status">
            {reuse.data.enabled ? `On: results from the last ${reuse.data.days} days are reused.` : 'Off: every address is verified again.'}
          </p>
        </form>
      )}
      <ErrorNote error={reuse.error ?? save.error} />
    </Card>
  );
}
