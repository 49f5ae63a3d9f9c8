'use client';

import Link from 'next/link';
import { useQuota } from '@/lib/client/rules-hooks';
import { formatDate, number } from '../ui';

const HOUR = 3_600_000;

/** What the quota events say, for the person at the dashboard: below the warning, or refused for want of credits. */
export function QuotaBanner() {
  const quota = useQuota();
  const state = quota.data;
  if (!state) return null;
  const refusedRecently = state.exceeded_at !== null && Date.now() - Date.parse(state.exceeded_at) < HOUR && state.remaining === 0;
  if (!state.below && !refusedRecently) return null;
  return (
    <div role="status" className="border-b border-amber-200 bg-amber-50 px-4 py-2 text-center text-sm text-amber-900" data-testid="quota-banner">
      {refusedRecently
        ? `Out of checks: a request was refused for want of credits at ${formatDate(state.exceeded_at)}.`
        : `Running low: ${number(state.remaining)} production checks left (credits plus today's free ones), below your warning of ${number(state.warning_below)}.`}{' '}
      <Link href="/settings" className="font-semibold underline">
        Usage
      </Link>
    </div>
  );
}
