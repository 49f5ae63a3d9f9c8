'use client';

import Link from 'next/link';
import { useSearchParams } from 'next/navigation';
import { signIn } from 'next-auth/react';
import { useState, type FormEvent } from 'react';
import { Button, ErrorNote, inputClass, labelClass } from '../ui';

const copy = {
  signin: { title: 'Sign in', action: 'Sign in', busy: 'Signing in…', switchText: 'No account yet?', switchLink: 'Create one', switchHref: '/signup' },
  signup: {
    title: 'Create your account',
    action: 'Create account',
    busy: 'Creating account…',
    switchText: 'Already have an account?',
    switchLink: 'Sign in',
    switchHref: '/signin',
  },
};

/** What next-auth's ?error= (or signIn's result.error) means for the person signing in. */
function signInError(code: string): string {
  // lib/auth/login.ts answers TooManyAttempts:<seconds> once an account or address is over its sign-in limit.
  const throttled = /^TooManyAttempts(?::(\d+))?$/.exec(code);
  if (throttled) {
    const minutes = Math.max(1, Math.ceil(Number(throttled[1] ?? 900) / 60));
    return `Too many failed sign-ins for this account or network. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`;
  }
  // lib/auth/login.ts: the right password of a person with two-factor on, without a code (the code field then shows) or with a wrong one.
  if (code === 'TwoFactorRequired') return 'Enter the code from your authenticator app, or a recovery code.';
  if (code === 'TwoFactorInvalid') return 'That code is wrong or was used already. Wait for the next code, or use a recovery code.';
  // lib/auth/login.ts: the right password, but every organisation of the person signs in through single sign-on.
  if (code === 'SsoRequired') return 'Your organisation signs in through single sign-on: use the button below.';
  // lib/accounts/sso.ts: refusals of a sign-in through the identity provider.
  if (code === 'SsoUnverifiedEmail')
    return 'An account with this email exists, but your identity provider has not verified the address, so it cannot be linked. Sign in with your password, or ask your administrator.';
  if (code === 'SsoNoEmail') return 'Your identity provider did not share an email address; ask your administrator.';
  if (code === 'SsoOtherIdentity') return 'This email is linked to another identity at your provider already.';
  // next-auth: the provider's answer did not check out (state, nonce, signature) or could not be reached.
  if (['OAuthSignin', 'OAuthCallback', 'Callback', 'AccessDenied', 'Configuration'].includes(code))
    return 'Single sign-on failed. Try again, or ask your administrator.';
  return 'Wrong email or password.';
}

async function createAccount(email: string, password: string): Promise<void> {
  const response = await fetch('/api/signup', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  if (!response.ok) {
    const body = (await response.json().catch(() => ({}))) as { message?: string };
    throw new Error(body.message ?? 'Could not create the account.');
  }
}

/** `sso`: the label of the operator's identity provider (EV_OIDC_NAME) when single sign-on is configured. */
export function AuthForm({ mode, sso }: { mode: 'signin' | 'signup'; sso?: string | null }) {
  const text = copy[mode];
  const params = useSearchParams();
  const [error, setError] = useState<string | null>(params.get('error') ? signInError(params.get('error')!) : null);
  const [busy, setBusy] = useState(false);
  const [askCode, setAskCode] = useState(/^TwoFactor/.test(params.get('error') ?? ''));

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const email = String(form.get('email') ?? '');
    const password = String(form.get('password') ?? '');
    const code = String(form.get('code') ?? '');
    setBusy(true);
    setError(null);
    try {
      if (mode === 'signup') await createAccount(email, password);
      const result = await signIn('credentials', { email, password, ...(askCode ? { code } : {}), redirect: false });
      if (result?.error?.startsWith('TwoFactor')) setAskCode(true);
      if (!result || result.error) throw new Error(signInError(result?.error ?? ''));
      const target = params.get('callbackUrl');
      // A full load so the server layout sees the new session cookie.
      window.location.assign(target?.startsWith('/') ? target : '/lists');
    } catch (e) {
      setError(e instanceof Error ? e.message : 'Something went wrong.');
      setBusy(false);
    }
  }

  return (
    <form onSubmit={onSubmit} className="space-y-5">
      <h1 className="text-xl font-semibold text-slate-900">{text.title}</h1>
      {error && <ErrorNote error={error} />}
      <div>
        <label htmlFor="email" className={labelClass}>
          Email
        </label>
        <input id="email" name="email" type="email" autoComplete="email" required className={inputClass} />
      </div>
      <div>
        <label htmlFor="password" className={labelClass}>
          Password
        </label>
        <input
          id="password"
          name="password"
          type="password"
          required
          minLength={mode === 'signup' ? 8 : undefined}
          autoComplete={mode === 'signup' ? 'new-password' : 'current-password'}
          aria-describedby={mode === 'signup' ? 'password-hint' : undefined}
          className={inputClass}
        />
        {mode === 'signup' && (
          <p id="password-hint" className="mt-1 text-xs text-slate-500">
            At least 8 characters, not only spaces.
          </p>
        )}
      </div>
      {askCode && (
        <div>
          <label htmlFor="code" className={labelClass}>
            Two-factor code
          </label>
          {/* biome-ignore lint/a11y/noAutofocus: the sign-in's second step is this one field, which the person came to type in */}
          <input id="code" name="code" type="text" autoComplete="one-time-code" required autoFocus className={inputClass} aria-describedby="code-hint" />
          <p id="code-hint" className="mt-1 text-xs text-slate-500">
            The 6-digit code your authenticator app shows, or one of your recovery codes.
          </p>
        </div>
      )}
      <Button type="submit" disabled={busy} className="w-full">
        {busy ? text.busy : text.action}
      </Button>
      {sso && (
        <>
          <div className="flex items-center gap-3 text-xs text-slate-400" aria-hidden="true">
            <span className="h-px flex-1 bg-slate-200" />
            or
            <span className="h-px flex-1 bg-slate-200" />
          </div>
          <Button
            variant="secondary"
            disabled={busy}
            className="w-full"
            onClick={() => {
              setBusy(true);
              const target = params.get('callbackUrl');
              // next-auth's OpenID Connect provider (lib/auth/oidc.ts): off to the identity provider and back
              void signIn('oidc', { callbackUrl: target?.startsWith('/') ? target : '/lists' });
            }}
          >
            Sign in with {sso}
          </Button>
        </>
      )}
      <p className="text-center text-sm text-slate-500">
        {text.switchText}{' '}
        <Link href={text.switchHref} className="font-semibold text-indigo-600 hover:text-indigo-500">
          {text.switchLink}
        </Link>
      </p>
    </form>
  );
}
