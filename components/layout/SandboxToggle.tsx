'use client';

import { setSandbox, useSandbox } from '@/lib/client/sandbox';
import { cx } from '../ui';

/** One click switches every call the dashboard makes between live and sandbox mode. */
export function SandboxToggle() {
  const on = useSandbox();
  return (
    <button
      type="button"
      role="switch"
      aria-checked={on}
      aria-label="Sandbox mode"
      onClick={() => setSandbox(!on)}
      className={cx(
        'group inline-flex items-center gap-2 rounded-full py-1 pl-1 pr-3 text-sm font-semibold ring-1 ring-inset transition-colors',
        'focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600',
        on ? 'bg-amber-100 text-amber-900 ring-amber-300' : 'bg-slate-100 text-slate-600 ring-slate-200 hover:bg-slate-200',
      )}
    >
      <span aria-hidden className={cx('relative h-5 w-9 rounded-full transition-colors', on ? 'bg-amber-500' : 'bg-slate-300')}>
        <span className={cx('absolute top-0.5 h-4 w-4 rounded-full bg-white shadow transition-all', on ? 'left-[1.125rem]' : 'left-0.5')} />
      </span>
      Sandbox
    </button>
  );
}

export function SandboxBanner() {
  const on = useSandbox();
  if (!on) return null;
  return (
    <div
      role="status"
      data-testid="sandbox-banner"
      className="bg-[repeating-linear-gradient(135deg,#fbbf24_0_14px,#f59e0b_14px_28px)] px-4 py-2 text-center text-sm font-semibold text-amber-950"
    >
      <span className="rounded bg-amber-50/90 px-2 py-0.5">
        Sandbox mode — results are simulated, no credits are used and no mail server is contacted.{' '}
        <button type="button" onClick={() => setSandbox(false)} className="underline underline-offset-2 hover:no-underline">
          Switch to live
        </button>
      </span>
    </div>
  );
}
