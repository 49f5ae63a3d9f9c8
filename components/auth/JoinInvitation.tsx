'use client';

import Link from 'next/link';
import { useSearchParams } from 'next/navigation';
import { signIn, signOut } from 'next-auth/react';
import { useEffect, useState, type FormEvent } from 'react';
import { Button, ErrorNote, inputClass, labelClass, primaryLinkButton } from '../ui';

interface Preview {
  organisation_name: string;
  email: string;
  role: string;
  expires_at: string;
  account_exists: boolean;
}

async function post<T>(path: string, body: unknown): Promise<T> {
  const response = await fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const answer = (await response.json().catch(() => ({}))) as T & { message?: string };
  if (!response.ok) throw new Error(answer.message ?? 'Something went wrong.');
  return answer;
}

/** The dashboard acts for the organisation this cookie names (lib/auth/organisation.ts ORG_COOKIE). */
function actFor(orgId: string | null): void {
  // biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API is not in every browser the dashboard supports
  document.cookie = orgId ? `ev-org=${encodeURIComponent(orgId)}; path=/; max-age=31536000; samesite=lax` : 'ev-org=; path=/; max-age=0; samesite=lax';
}

const article = (role: string) => (role === 'admin' || role === 'owner' ? 'an' : 'a');

/**
 * The invitation link's page: what the invitation is (organisation, role, address), then one way
 * on: a new person chooses a password (POST /api/invitations/join, then next-auth's sign-in); the
 * invited person signed in accepts (POST /v1/invitations/accept); anyone else signs in as the
 * invited address first. Then the dashboard acts for the organisation joined.
 */
export function JoinInvitation({ signedInAs }: { signedInAs: string | null }) {
  const params = useSearchParams();
  const token = params.get('token') ?? '';
  const [preview, setPreview] = useState<Preview | null>(null);
  const [error, setError] = useState<string | null>(token ? null : 'This page needs the link from your invitation (…/join?token=…).');
  const [busy, setBusy] = useState(false);
  const here = `/join?token=${encodeURIComponent(token)}`;

  useEffect(() => {
    if (!token) return;
    post<Preview>('/api/invitations/lookup', { token }).then(setPreview, (e: Error) => setError(e.message));
  }, [token]);

  async function join(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!preview) return;
    const password = String(new FormData(event.currentTarget).get('password') ?? '');
    setBusy(true);
    setError(null);
    try {
      const joined = await post<{ organisation: { id: string } }>('/api/invitations/join', { token, password });
      const result = await signIn('credentials', { email: preview.email, password, redirect: false });
      if (!result || result.error) throw new Error('Your account was made, but signing in failed: sign in with your address and password.');
      // a new person has an organisation of their own too: the dashboard acts for the one they joined
      actFor(joined.organisation.id);
      window.location.assign('/lists');
    } catch (e) {
      setError(e instanceof Error ? e.message : 'Something went wrong.');
      setBusy(false);
    }
  }

  async function accept() {
    setBusy(true);
    setError(null);
    try {
      // accept as the person's own organisation (a stale ev-org cookie could name one they left)
      actFor(null);
      const answer = await fetch('/v1/invitations/accept', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ token }),
      });
      const body = (await answer.json().catch(() => ({}))) as { organisation?: { id: string }; message?: string };
      if (!answer.ok || !body.organisation) throw new Error(body.message ?? 'Could not accept the invitation.');
      actFor(body.organisation.id);
      window.location.assign('/lists');
    } catch (e) {
      setError(e instanceof Error ? e.message : 'Something went wrong.');
      setBusy(false);
    }
  }

  const signedInAsInvitee = preview && signedInAs?.toLowerCase() === preview.email;
  return (
    <div className="space-y-5">
      <h1 className="text-xl font-semibold text-slate-900">Join an organisation</h1>
      {error && <ErrorNote error={error} />}
      {!preview && !error && <p className="text-sm text-slate-500">Reading the invitation…</p>}
      {preview && (
        <>
          <p className="text-sm text-slate-700" data-testid="invitation-summary">
            You are invited to join <strong>{preview.organisation_name}</strong> as {article(preview.role)} <strong>{preview.role}</strong>, as{' '}
            <strong>{preview.email}</strong>.
          </p>
          {signedInAsInvitee ? (
            <Button type="button" onClick={accept} disabled={busy} className="w-full">
              {busy ? 'Joining…' : `Accept and join ${preview.organisation_name}`}
            </Button>
          ) : signedInAs ? (
            <div className="space-y-3 text-sm text-slate-700">
              <p>
                You are signed in as {signedInAs}. This invitation is for {preview.email}.
              </p>
              <Button
                type="button"
                variant="secondary"
                className="w-full"
                onClick={() => signOut({ callbackUrl: `/signin?callbackUrl=${encodeURIComponent(here)}` })}
              >
                Sign out, then sign in as {preview.email}
              </Button>
            </div>
          ) : preview.account_exists ? (
            <div className="space-y-3 text-sm text-slate-700">
              <p>{preview.email} has an account: sign in to accept.</p>
              <Link href={`/signin?callbackUrl=${encodeURIComponent(here)}`} className={`${primaryLinkButton} w-full justify-center`}>
                Sign in to accept
              </Link>
            </div>
          ) : (
            <form onSubmit={join} className="space-y-5">
              <div>
                <label htmlFor="password" className={labelClass}>
                  Choose a password
                </label>
                <input
                  id="password"
                  name="password"
                  type="password"
                  required
                  minLength={8}
                  autoComplete="new-password"
                  aria-describedby="password-hint"
                  className={inputClass}
                />
                <p id="password-hint" className="mt-1 text-xs text-slate-500">
                  At least 8 characters, not only spaces.
                </p>
              </div>
              <Button type="submit" disabled={busy} className="w-full">
                {busy ? 'Joining…' : 'Create account and join'}
              </Button>
            </form>
          )}
        </>
      )}
    </div>
  );
}
