'use client';

import { useState, type FormEvent } from 'react';
import { useOrganisationSettings, useUpdateOrganisation } from '@/lib/client/sso-hooks';
import { Button, Card, ErrorNote, inputClass, labelClass } from '../ui';

/**
 * Single sign-on for the organisation (docs/security.md, "Single sign-on"): the email domain whose
 * people join it through the installation's identity provider, with which role, and whether password
 * sessions may act for it. Shown only when the installation has single sign-on; changes are the
 * owners' (others get the server's 403).
 */
export function SingleSignOn() {
  const settings = useOrganisationSettings();
  const update = useUpdateOrganisation();
  const [domain, setDomain] = useState('');
  const [role, setRole] = useState<'admin' | 'member' | 'viewer' | ''>('');
  const data = settings.data;
  if (!data?.sso_available) return null;

  function onSave(event: FormEvent) {
    event.preventDefault();
    // only what changed: the domain is checked against the owner's own email when sent
    const input: { sso_domain?: string; sso_default_role?: 'admin' | 'member' | 'viewer' } = {};
    if (domain.trim() !== '') input.sso_domain = domain.trim();
    if (role && role !== data!.sso_default_role) input.sso_default_role = role;
    if (Object.keys(input).length === 0) return;
    update.mutate(input, {
      onSuccess: () => {
        setDomain('');
        setRole('');
      },
    });
  }

  return (
    <Card
      title="Single sign-on"
      description="People who sign in through your identity provider with a verified address at the claimed domain join this organisation. You can claim your own email's domain."
    >
      <form onSubmit={onSave} className="grid gap-3 sm:grid-cols-[1fr_auto_auto] sm:items-end" data-testid="sso-form">
        <div>
          <label htmlFor="sso-domain" className={labelClass}>
            Claimed domain
          </label>
          <input
            id="sso-domain"
            value={domain}
            onChange={(e) => setDomain(e.target.value)}
            placeholder={data.sso_domain ?? 'acme.com'}
            className={inputClass}
          />
        </div>
        <div>
          <label htmlFor="sso-role" className={labelClass}>
            They join as
          </label>
          <select id="sso-role" value={role || data.sso_default_role} onChange={(e) => setRole(e.target.value as typeof role)} className={inputClass}>
            <option value="viewer">viewer</option>
            <option value="member">member</option>
            <option value="admin">admin</option>
          </select>
        </div>
        <Button type="submit" variant="secondary" disabled={update.isPending}>
          Save
        </Button>
      </form>
      <div className="mt-4 flex flex-wrap items-center justify-between gap-3 border-t border-slate-100 pt-4">
        <p className="text-sm text-slate-600" role="status">
          {data.sso_domain ? `Claimed: ${data.sso_domain}. ` : 'No domain claimed. '}
          {data.password_sign_in
            ? 'Password sign-in is on.'
            : 'Password sign-in is off: members act for this organisation only when signed in through single sign-on.'}
        </p>
        <div className="flex gap-2">
          {data.sso_domain && (
            <Button variant="ghost" disabled={update.isPending} onClick={() => update.mutate({ sso_domain: null })}>
              Unclaim
            </Button>
          )}
          <Button variant="ghost" disabled={update.isPending} onClick={() => update.mutate({ password_sign_in: !data.password_sign_in })}>
            {data.password_sign_in ? 'Turn password sign-in off' : 'Turn password sign-in on'}
          </Button>
        </div>
      </div>
      <ErrorNote error={settings.error ?? update.error} />
    </Card>
  );
}
