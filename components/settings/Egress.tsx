'use client';

import Link from 'next/link';
import { useEgress, useRecheckEgress } from '@/lib/client/hooks';
import { useSandbox } from '@/lib/client/sandbox';
import type { EgressCheck, EgressCheckStatus as CheckStatus } from '@/lib/sdk/src/index';
import { Button, Card, ErrorNote, cx, formatDate } from '../ui';

const TITLES: Record<EgressCheck['name'], string> = {
  identity: 'Sender identity',
  port25: 'Outbound port 25',
  egress_ip: 'Egress IP',
  rdns: 'Reverse DNS',
  dnsbl: 'Blocklists',
  resolver: 'DNS resolver',
  refusals: 'Refused by mail servers',
};

const LOOK: Record<CheckStatus, { mark: string; label: string; badge: string; mark_class: string }> = {
  pass: { mark: '✓', label: 'Pass', badge: 'bg-emerald-50 text-emerald-800 ring-emerald-200', mark_class: 'bg-emerald-100 text-emerald-700' },
  warn: { mark: '!', label: 'Warning', badge: 'bg-amber-50 text-amber-900 ring-amber-200', mark_class: 'bg-amber-100 text-amber-800' },
  fail: { mark: '✗', label: 'Failing', badge: 'bg-red-50 text-red-800 ring-red-200', mark_class: 'bg-red-100 text-red-700' },
};

function StatusBadge({ status }: { status: CheckStatus }) {
  return (
    <span
      className={cx('inline-flex items-center rounded-full px-2.5 py-0.5 text-xs font-semibold ring-1 ring-inset', LOOK[status].badge)}
      data-testid="egress-status"
    >
      {LOOK[status].label}
    </span>
  );
}

/** Settings: what mail servers see when this installation checks an address, and a re-check. */
export function EgressCard() {
  const egress = useEgress();
  const recheck = useRecheckEgress();
  const data = egress.data?.data;
  return (
    <Card
      title={
        <span id="egress" className="flex items-center gap-2">
          Mail server reachability {data && <StatusBadge status={data.status} />}
        </span>
      }
      description="Whether this installation can talk to mail servers: outbound port 25, reverse DNS of its address, blocklists. Checked every few minutes; the same for every account."
      actions={
        <Button variant="secondary" onClick={() => recheck.mutate()} disabled={recheck.isPending || egress.isPending}>
          {recheck.isPending ? 'Checking…' : 'Re-check'}
        </Button>
      }
    >
      <ErrorNote error={egress.error ?? recheck.error} />
      {egress.isPending && <p className="text-sm text-slate-500">Checking… this takes up to a few seconds.</p>}
      {data && (
        <>
          <p className="mb-4 text-sm text-slate-500">
            Egress IP <span className="font-mono text-slate-800">{data.egress_ip ?? 'unknown'}</span> · HELO name{' '}
            <span className="font-mono text-slate-800">{data.helo_name}</span> · checked {formatDate(data.checked_at)}
            {data.production_paused && <span className="font-semibold text-red-700"> · production lists are paused</span>}
          </p>
          <ul className="divide-y divide-slate-100" aria-label="Egress checks">
            {data.checks.map((check) => (
              <li key={check.name} className="flex gap-3 py-3" data-testid="egress-check" data-status={check.status}>
                <span
                  aria-hidden
                  className={cx('mt-0.5 flex h-6 w-6 shrink-0 items-center justify-center rounded-full text-sm font-bold', LOOK[check.status].mark_class)}
                >
                  {LOOK[check.status].mark}
                </span>
                <div className="min-w-0">
                  <p className="text-sm font-semibold text-slate-900">
                    {TITLES[check.name]} <span className="sr-only">({LOOK[check.status].label})</span>
                  </p>
                  <p className="break-words text-sm text-slate-600">{check.message}</p>
                  {check.remedy && <p className="mt-1 break-words text-sm text-slate-800">→ {check.remedy}</p>}
                </div>
              </li>
            ))}
          </ul>
        </>
      )}
    </Card>
  );
}

/** Lists and job pages, live mode only: a short note when mail-server checks fail on this installation. */
export function EgressBanner() {
  const live = !useSandbox();
  const egress = useEgress(live);
  const data = egress.data?.data;
  if (!live || !data || data.status !== 'fail') return null;
  const failing = data.checks.filter((c) => c.status === 'fail').map((c) => TITLES[c.name].toLowerCase());
  return (
    <div role="status" data-testid="egress-banner" className="rounded-xl bg-red-50 px-4 py-3 text-sm text-red-900 ring-1 ring-red-200">
      <span className="font-semibold">Mail server checks are failing ({failing.join(', ')}).</span>{' '}
      {data.production_paused
        ? `Live lists wait in the queue until ${data.checks.some((c) => c.name === 'identity' && c.status === 'fail') ? 'the sender identity is set' : 'outbound port 25 works'}.`
        : 'Live results may come back as unknown.'}{' '}
      <Link href="/settings#egress" className="font-semibold underline underline-offset-2 hover:no-underline">
        Details in Settings
      </Link>
    </div>
  );
}
