'use client';

import { useState, type FormEvent } from 'react';
import { roleAtLeast } from '@/lib/accounts/roles';
import { useCurrentOrganisation, useInvitations, useInvite, useRevokeInvitation } from '@/lib/client/team-hooks';
import type { Role } from '@/lib/sdk/src/index';
import { Button, Card, Empty, ErrorNote, formatDate, inputClass, labelClass, selectClass } from '../ui';
import { CopyButton } from './CopyButton';
import { rolesOffered } from './member-roles';

/** Invite an address with a role; pending invitations with Revoke (admins and owners). */
export function InvitationsCard() {
  const me = useCurrentOrganisation()?.role;
  const canInvite = me !== undefined && roleAtLeast(me, 'admin');
  const invitations = useInvitations(canInvite);
  const invite = useInvite();
  const revoke = useRevokeInvitation();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  if (!canInvite) return null;
  const pending = invitations.data?.filter((i) => i.state === 'pending');

  function onInvite(event: FormEvent) {
    event.preventDefault();
    invite.mutate({ email: email.trim(), role }, { onSuccess: () => setEmail('') });
  }

  return (
    <Card
      title="Invitations"
      description="An invitation is a link for one address, used once, valid for a limited time (7 days unless the installation says otherwise). It goes by mail when the installation has a mail relay; otherwise copy it and send it yourself."
    >
      <form onSubmit={onInvite} className="flex flex-wrap items-end gap-2">
        <div className="min-w-64 flex-1">
          <label htmlFor="invite-email" className={labelClass}>
            Email address
          </label>
          <input
            id="invite-email"
            type="email"
            required
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            placeholder="colleague@example.com"
            className={inputClass}
          />
        </div>
        <div>
          <label htmlFor="invite-role" className={labelClass}>
            Role
          </label>
          <select id="invite-role" value={role} onChange={(e) => setRole(e.target.value as Role)} className={selectClass}>
            {rolesOffered(me).map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </div>
        <Button type="submit" disabled={invite.isPending}>
          Invite
        </Button>
      </form>
      <div className="mt-4 space-y-3">
        <ErrorNote error={invite.error ?? revoke.error ?? invitations.error} />
        {invite.data && (
          <div className="rounded-xl bg-emerald-50 p-4 ring-1 ring-emerald-200" role="status" data-testid="invitation-sent">
            {invite.data.link ? (
              <>
                <p className="text-sm font-semibold text-emerald-900">
                  {invite.data.mail_error ? `${invite.data.mail_error} ` : 'No mail relay is configured: '}Send {invite.data.email} this link yourself.
                </p>
                <div className="mt-2 flex flex-wrap items-center gap-2">
                  <code
                    className="min-w-0 flex-1 break-all rounded-lg bg-white px-3 py-2 font-mono text-sm ring-1 ring-emerald-200"
                    data-testid="invitation-link"
                  >
                    {invite.data.link}
                  </code>
                  <CopyButton value={invite.data.link} label="Copy link" />
                </div>
              </>
            ) : (
              <p className="text-sm font-semibold text-emerald-900">Invitation mailed to {invite.data.email}.</p>
            )}
            <Button variant="ghost" className="mt-2" onClick={() => invite.reset()}>
              Done
            </Button>
          </div>
        )}
        {pending?.length === 0 && <Empty>No pending invitations.</Empty>}
        {pending && pending.length > 0 && (
          <ul className="divide-y divide-slate-100 rounded-xl ring-1 ring-slate-200" data-testid="invitations">
            {pending.map((invitation) => (
              <li key={invitation.id} className="flex flex-wrap items-center justify-between gap-3 px-4 py-3" data-testid="invitation">
                <div className="min-w-0">
                  <p className="truncate text-sm font-medium text-slate-900">
                    {invitation.email} <span className="font-normal capitalize text-slate-500">· {invitation.role}</span>
                  </p>
                  <p className="text-xs text-slate-500">
                    invited by {invitation.invited_by.email} · expires {formatDate(invitation.expires_at)}
                  </p>
                </div>
                <Button
                  variant="danger"
                  className="py-1!"
                  onClick={() => revoke.mutate(invitation.id)}
                  disabled={revoke.isPending}
                  aria-label={`Revoke the invitation of ${invitation.email}`}
                >
                  Revoke
                </Button>
              </li>
            ))}
          </ul>
        )}
      </div>
    </Card>
  );
}
