'use client';

import { useState, type FormEvent } from 'react';
import { useVerifySingle } from '@/lib/client/hooks';
import { Button, Card, ErrorNote, inputClass, labelClass } from '../ui';
import { VerdictCard } from './VerdictCard';

export function CheckForm() {
  const [email, setEmail] = useState('');
  const verify = useVerifySingle();

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    if (email.trim()) verify.mutate(email.trim());
  }

  return (
    <div className="grid gap-6 lg:grid-cols-5">
      <Card title="Check one address" className="lg:col-span-2 self-start">
        <form onSubmit={onSubmit} className="space-y-4">
          <div>
            <label htmlFor="check-email" className={labelClass}>
              Email address
            </label>
            <input
              id="check-email"
              type="text"
              inputMode="email"
              autoComplete="off"
              spellCheck={false}
              value={email}
              onChange={(e) => setEmail(e.target.value)}
              placeholder="jane@example.com"
              className={inputClass}
            />
          </div>
          <Button type="submit" disabled={verify.isPending || !email.trim()} className="w-full">
            {verify.isPending ? 'Checking…' : 'Verify'}
          </Button>
          <p className="text-xs text-slate-500">A live check talks to the domain’s mail server and can take a few seconds. Sandbox checks are instant.</p>
        </form>
      </Card>
      <div className="lg:col-span-3" aria-live="polite">
        <ErrorNote error={verify.error} />
        {verify.data && <VerdictCard result={verify.data} />}
        {!verify.data && !verify.error && (
          <div className="flex h-full min-h-48 items-center justify-center rounded-2xl border border-dashed border-slate-300 p-8 text-center text-sm text-slate-500">
            The verdict and the evidence behind it appear here.
          </div>
        )}
      </div>
    </div>
  );
}
