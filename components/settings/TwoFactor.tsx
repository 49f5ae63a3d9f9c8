'use client';

import { useState, type FormEvent } from 'react';
import type { TwoFactorEnrolment } from '@/lib/sdk/src/index';
import { useConfirmTwoFactor, useDisableTwoFactor, useRequireTwoFactor, useStartTwoFactor, useTwoFactor } from '@/lib/client/two-factor-hooks';
import { Button, Card, ErrorNote, inputClass, labelClass } from '../ui';
import { CopyButton } from './CopyButton';

/**
 * Two-factor sign-in (docs/security.md, "Two-factor"): enrol an authenticator app with the QR code
 * (or the secret typed by hand), confirm with a code, then the ten recovery codes shown once; turn
 * it off with a code or the password. An owner also requires it for the organisation here.
 */
export function TwoFactorCard() {
  const state = useTwoFactor();
  const start = useStartTwoFactor();
  const confirm = useConfirmTwoFactor();
  const [enrolment, setEnrolment] = useState<TwoFactorEnrolment | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const [code, setCode] = useState('');

  function onStart() {
    setCodes(null);
    start.mutate(undefined, { onSuccess: (answer) => setEnrolment(answer) });
  }

  function onConfirm(event: FormEvent) {
    event.preventDefault();
    confirm.mutate(code, {
      onSuccess: (answer) => {
        setCodes(answer.recovery_codes);
        setEnrolment(null);
        setCode('');
      },
    });
  }

  const data = state.data;
  return (
    <Card
      title="Two-factor sign-in"
      description="With two-factor on, signing in with your password also asks for a code from an authenticator app (or one of your recovery codes)."
    >
      <div className="space-y-4">
        <ErrorNote error={state.error ?? start.error ?? confirm.error} />
        {data && data.required_by.length > 0 && !data.enabled && (
          <p role="alert" className="rounded-lg bg-amber-50 px-3 py-2 text-sm text-amber-900 ring-1 ring-amber-200">
            {data.required_by.map((o) => o.name).join(', ')} require{data.required_by.length === 1 ? 's' : ''} two-factor sign-in: turn it on to use{' '}
            {data.required_by.length === 1 ? 'it' : 'them'}.
          </p>
        )}

        {codes && (
          <div className="space-y-3 rounded-xl bg-emerald-50 p-4 ring-1 ring-emerald-200" data-testid="recovery-codes">
            <p className="text-sm font-medium text-emerald-900">
              Two-factor is on. Keep these recovery codes somewhere safe: each signs you in once if you lose your device. They are shown only now.
            </p>
            <pre className="grid grid-cols-2 gap-1 font-mono text-sm text-slate-900">
              {codes.map((c) => (
                <span key={c}>{c}</span>
              ))}
            </pre>
            <div className="flex gap-2">
              <CopyButton value={codes.join('\n')} label="Copy codes" />
              <Button variant="ghost" onClick={() => setCodes(null)}>
                I have saved them
              </Button>
            </div>
          </div>
        )}

        {data && !data.enabled && !enrolment && !codes && (
          <div className="flex flex-wrap items-center justify-between gap-3">
            <p className="text-sm text-slate-600">Two-factor is off.</p>
            <Button onClick={onStart} disabled={start.isPending}>
              Set up two-factor
            </Button>
          </div>
        )}

        {enrolment && (
          <form onSubmit={onConfirm} className="space-y-4" aria-label="Enrol an authenticator app">
            <div className="flex flex-wrap items-start gap-5">
              {/* a data: URL of an SVG the server rendered from the otpauth:// URI: nothing for next/image to optimise */}
              {/* biome-ignore lint/performance/noImgElement: see above */}
              <img
                src={enrolment.qr_code}
                alt="QR code to scan with your authenticator app"
                width={176}
                height={176}
                className="rounded-lg ring-1 ring-slate-200"
              />
              <div className="min-w-0 flex-1 space-y-2 text-sm text-slate-600">
                <p>Scan the code with an authenticator app (1Password, Google Authenticator, Aegis, …), or type this key into it:</p>
                <p className="break-all font-mono text-slate-900" data-testid="two-factor-secret">
                  {enrolment.secret.match(/.{1,4}/g)!.join(' ')}
                </p>
                <CopyButton value={enrolment.secret} label="Copy key" />
              </div>
            </div>
            <div className="grid gap-3 sm:grid-cols-[1fr_auto] sm:items-end">
              <div>
                <label htmlFor="two-factor-confirm" className={labelClass}>
                  Code from the app
                </label>
                <input
                  id="two-factor-confirm"
                  inputMode="numeric"
                  autoComplete="one-time-code"
                  pattern="[0-9 ]{6,7}"
                  required
                  value={code}
                  onChange={(e) => setCode(e.target.value)}
                  className={inputClass}
                />
              </div>
              <div className="flex gap-2">
                <Button type="submit" disabled={confirm.isPending}>
                  Turn on two-factor
                </Button>
                <Button variant="ghost" onClick={() => setEnrolment(null)}>
                  Cancel
                </Button>
              </div>
            </div>
          </form>
        )}

        {data?.enabled && !codes && <EnabledState enabledAt={data.enabled_at} left={data.recovery_codes_left} required={data.required_by.map((o) => o.name)} />}
        {data && data.organisation.role === 'owner' && (
          <OrganisationRequirement name={data.organisation.name} required={data.organisation.require_two_factor} enabled={data.enabled} />
        )}
      </div>
    </Card>
  );
}

function EnabledState({ enabledAt, left, required }: { enabledAt: string | null; left: number; required: string[] }) {
  const disable = useDisableTwoFactor();
  const [proof, setProof] = useState('');
  const [open, setOpen] = useState(false);

  function onDisable(event: FormEvent) {
    event.preventDefault();
    // six digits are a code of the app; anything else a recovery code or the password
    const typed = proof.trim();
    const input = /^[\d ]{6,7}$/.test(typed) || /^[a-z2-7]{4}(-?[a-z2-7]{4}){3}$/i.test(typed) ? { code: typed } : { current_password: proof };
    disable.mutate(input, {
      onSuccess: () => {
        setProof('');
        setOpen(false);
      },
    });
  }

  return (
    <div className="space-y-3">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <p className="text-sm text-slate-600">
          Two-factor is on{enabledAt ? ` since ${new Date(enabledAt).toLocaleDateString()}` : ''}. {left} of 10 recovery codes left.
        </p>
        {!open && (
          <Button
            variant="danger"
            onClick={() => setOpen(true)}
            disabled={required.length > 0}
            title={required.length ? `Required by ${required.join(', ')}` : undefined}
          >
            Turn off two-factor
          </Button>
        )}
      </div>
      {open && (
        <form onSubmit={onDisable} className="grid gap-3 sm:grid-cols-[1fr_auto] sm:items-end">
          <div>
            <label htmlFor="two-factor-disable" className={labelClass}>
              A code from the app, a recovery code or your password
            </label>
            <input
              id="two-factor-disable"
              type="password"
              autoComplete="off"
              required
              value={proof}
              onChange={(e) => setProof(e.target.value)}
              className={inputClass}
            />
          </div>
          <div className="flex gap-2">
            <Button type="submit" variant="danger" disabled={disable.isPending}>
              Confirm: turn off
            </Button>
            <Button variant="ghost" onClick={() => setOpen(false)}>
              Cancel
            </Button>
          </div>
        </form>
      )}
      <ErrorNote error={disable.error} />
    </div>
  );
}

function OrganisationRequirement({ name, required, enabled }: { name: string; required: boolean; enabled: boolean }) {
  const change = useRequireTwoFactor();
  return (
    <div className="space-y-2 border-t border-slate-100 pt-4">
      <label className="flex items-start gap-3 text-sm text-slate-700">
        <input
          type="checkbox"
          className="mt-0.5 h-4 w-4 rounded border-slate-300"
          checked={required}
          disabled={change.isPending || (!required && !enabled)}
          onChange={(e) => change.mutate(e.target.checked)}
        />
        <span>
          Require two-factor for everyone in <strong>{name}</strong>. Members without it can only set it up until they do; API keys are not affected.
          {!required && !enabled && <span className="block text-slate-500">Turn it on for yourself first.</span>}
        </span>
      </label>
      <ErrorNote error={change.error} />
    </div>
  );
}
