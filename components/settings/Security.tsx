'use client';

import { signOut } from 'next-auth/react';
import { useState, type FormEvent } from 'react';
import { useChangePassword, useSignOutEverywhere } from '@/lib/client/hooks';
import { Button, Card, ErrorNote, inputClass, labelClass } from '../ui';

/** Password change and sign-out-everywhere: both end every other dashboard session. */
export function Security() {
  const change = useChangePassword();
  const everywhere = useSignOutEverywhere();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');

  function onChange(event: FormEvent) {
    event.preventDefault();
    change.mutate(
      { current_password: current, new_password: next },
      {
        onSuccess: () => {
          setCurrent('');
          setNext('');
        },
      },
    );
  }

  function onSignOutEverywhere() {
    // The server has ended this session too: clear its cookie and go to the sign-in page.
    everywhere.mutate(undefined, { onSuccess: () => signOut({ callbackUrl: '/signin' }) });
  }

  return (
    <Card title="Security" description="Changing the password signs out every other session. Sign out everywhere ends all of them, this one included.">
      <form onSubmit={onChange} className="grid gap-3 sm:grid-cols-[1fr_1fr_auto] sm:items-end">
        <div>
          <label htmlFor="current-password" className={labelClass}>
            Current password
          </label>
          <input
            id="current-password"
            type="password"
            autoComplete="current-password"
            required
            value={current}
            onChange={(e) => setCurrent(e.target.value)}
            className={inputClass}
          />
        </div>
        <div>
          <label htmlFor="new-password" className={labelClass}>
            New password
          </label>
          <input
            id="new-password"
            type="password"
            autoComplete="new-password"
            required
            minLength={8}
            value={next}
            onChange={(e) => setNext(e.target.value)}
            className={inputClass}
            aria-describedby="new-password-hint"
          />
        </div>
        <Button type="submit" disabled={change.isPending}>
          Change password
        </Button>
        <p id="new-password-hint" className="text-xs text-slate-500 sm:col-span-3">
          At least 8 characters, not only spaces.
        </p>
      </form>
      <div className="mt-4 space-y-4">
        <ErrorNote error={change.error ?? everywhere.error} />
        {change.isSuccess && (
          <p role="status" className="rounded-xl bg-emerald-50 p-3 text-sm text-emerald-900 ring-1 ring-emerald-200">
            {change.data.message}
          </p>
        )}
        <div className="flex flex-wrap items-center justify-between gap-3 border-t border-slate-100 pt-4">
          <p className="text-sm text-slate-600">Signed in on a shared or lost device? End every session of this account.</p>
          <Button variant="ghost" onClick={onSignOutEverywhere} disabled={everywhere.isPending}>
            Sign out everywhere
          </Button>
        </div>
      </div>
    </Card>
  );
}
