'use client';

import Link from 'next/link';
import { useRetention } from '@/lib/client/data-hooks';
import { formatDate } from '../ui';

/** The lists retention deletes within 7 days (the banner beside the list.expiring webhook, docs/retention.md). */
export function RetentionBanner() {
  const expiring = useRetention().data?.expiring ?? [];
  if (expiring.length === 0) return null;
  const first = expiring[0]!;
  const name = (list: typeof first) => list.filename ?? list.job_id;
  return (
    <div role="status" className="border-b border-amber-200 bg-amber-50 px-4 py-2 text-center text-sm text-amber-900" data-testid="retention-banner">
      {expiring.length === 1
        ? `The list ${name(first)} is deleted on ${formatDate(first.expires_at)} (your retention setting): download it before then.`
        : `${expiring.length} lists are deleted within 7 days, the first (${name(first)}) on ${formatDate(first.expires_at)}: download what you need before then.`}{' '}
      <Link href={`/jobs/${first.job_id}`} className="font-semibold underline">
        Open
      </Link>
      {' · '}
      <Link href="/settings" className="font-semibold underline">
        Retention
      </Link>
    </div>
  );
}
