'use client';

import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useSession } from 'next-auth/react';
import { useState, type FormEvent } from 'react';
import { ROLES, roleAtLeast, roleRank } from '@/lib/accounts/roles';
import {
  useCan,
  useCurrentOrganisation,
  useInvitations,
  useInvite,
  useLeaveOrganisation,
  useMembers,
  useRemoveMember,
  useRenameOrganisation,
  useRevokeInvitation,
  useUpdateMember,
} from '@/lib/client/team-hooks';
import type { Member, MemberUpdate, Role } from '@/lib/sdk/src/index';
import { Button, Card, DataTable, Empty, ErrorNote, formatDate, inputClass, labelClass, linkButton, number, selectClass } from '../ui';
import { CopyButton } from './CopyButton';

// Who may manage whom (docs/teams.md; the API checks it again, lib/accounts/members.ts): owners
// everyone, admins members and viewers; a role offered is at most your own, and at most `member`
// from an admin.
function mayManage(me: Role, target: Role): boolean {
  return me === 'owner' || (me === 'admin' && roleRank(target) < roleRank('admin'));
}

function rolesOffered(me: Role): Role[] {
  return ROLES.filter((role) => (me === 'owner' ? true : roleAtLeast(me, 'admin') && roleRank(role) <= roleRank('member')));
}

const capText = (cap: number | null) => (cap === null ? 'no cap' : number(cap));

/** Settings' way to the Members page, with how many people the organisation has. */
export function MembersLink() {
  const members = useMembers();
  const canManage = useCan('admin');
  return (
    <Card
      title="Members"
      description="The people of this organisation, their roles and their spending caps; invitations."
      actions={
        <Link href="/settings/members" className={linkButton}>
          {canManage ? 'Manage members' : 'See members'}
        </Link>
      }
    >
      <p className="text-sm text-slate-600" data-testid="members-count">
        {members.data ? `${number(members.data.length)} ${members.data.length === 1 ? 'member' : 'members'}` : '…'}
      </p>
      <ErrorNote error={members.error} />
    </Card>
  );
}

export function OrganisationCard() {
  const current = useCurrentOrganisation();
  const rename = useRenameOrganisation();
  const leave = useLeaveOrganisation();
  const router = useRouter();
  const [name, setName] = useState('');
  if (!current) return null;

  function onRename(event: FormEvent) {
    event.preventDefault();
    rename.mutate(name.trim(), { onSuccess: () => setName('') });
  }
  function onLeave() {
    if (!window.confirm(`Leave ${current!.name}? You lose access to its lists, results and keys until someone invites you again.`)) return;
    leave.mutate(undefined, { onSuccess: () => router.push('/lists') });
  }

  return (
    <Card
      title={current.name}
      description={`You are ${current.role === 'owner' || current.role === 'admin' ? 'an' : 'a'} ${current.role} of this organisation.`}
    >
      {current.role === 'owner' && (
        <form onSubmit={onRename} className="flex flex-wrap items-end gap-2">
          <div className="min-w-64 flex-1">
            <label htmlFor="organisation-name" className={labelClass}>
              Organisation name
            </label>
            <input
              id="organisation-name"
              required
              maxLength={100}
              value={name}
              onChange={(e) => setName(e.target.value)}
              placeholder={current.name}
              className={inputClass}
            />
          </div>
          <Button type="submit" variant="secondary" disabled={rename.isPending}>
            Rename
          </Button>
        </form>
      )}
      <div className="mt-4 flex flex-wrap items-center gap-3 border-t border-slate-100 pt-4 first:mt-0 first:border-0 first:pt-0">
        <Button variant="danger" onClick={onLeave} disabled={leave.isPending}>
          Leave organisation
        </Button>
        {current.role === 'owner' && <span className="text-sm text-slate-500">The last owner cannot leave: make another member owner first.</span>}
      </div>
      <div className="mt-3 space-y-2">
        <ErrorNote error={rename.error} />
        <ErrorNote error={leave.error} />
      </div>
    </Card>
  );
}

export function MembersCard() {
  const members = useMembers();
  const me = useCurrentOrganisation()?.role;
  const myEmail = useSession().data?.user?.email?.toLowerCase();
  return (
    <Card
      title="Members"
      description="Roles: viewers read lists, results, history and usage; members also verify and run lists; admins also manage keys, webhooks, rules, settings and the members below them; owners manage everyone. Caps limit the charged checks a member (and the keys they made) may spend."
    >
      <div className="space-y-3">
        <ErrorNote error={members.error} />
        <DataTable
          caption="Members"
          testId="members"
          dimmed={members.isFetching}
          columns={[
            { label: 'Email' },
            { label: 'Role' },
            { label: 'Checks a day' },
            { label: 'Checks a month' },
            { label: 'Joined' },
            { label: '', className: 'w-0' },
          ]}
          empty={members.data?.length === 0 ? 'No members.' : null}
        >
          {members.data?.map((member) => (
            <MemberRow key={member.user_id} member={member} me={me} self={member.email.toLowerCase() === myEmail} />
          ))}
        </DataTable>
      </div>
    </Card>
  );
}

function MemberRow({ member, me, self }: { member: Member; me: Role | undefined; self: boolean }) {
  const update = useUpdateMember();
  const remove = useRemoveMember();
  const [role, setRole] = useState<Role>(member.role);
  const [day, setDay] = useState(member.checks_per_day === null ? '' : String(member.checks_per_day));
  const [month, setMonth] = useState(member.checks_per_month === null ? '' : String(member.checks_per_month));
  const manage = me !== undefined && mayManage(me, member.role);

  if (!manage) {
    return (
      <tr data-testid="member">
        <td className="px-3 py-2 font-medium">
          {member.email}
          {self && <span className="ml-2 text-xs text-slate-500">(you)</span>}
        </td>
        <td className="px-3 py-2 capitalize" data-testid="member-role">
          {member.role}
        </td>
        <td className="px-3 py-2 tabular-nums">{capText(member.checks_per_day)}</td>
        <td className="px-3 py-2 tabular-nums">{capText(member.checks_per_month)}</td>
        <td className="whitespace-nowrap px-3 py-2 text-slate-500">{formatDate(member.joined_at)}</td>
        <td className="px-3 py-2" />
      </tr>
    );
  }

  const toCap = (value: string) => (value.trim() === '' ? null : Number(value));
  const change: MemberUpdate = {};
  if (role !== member.role) change.role = role;
  if (toCap(day) !== member.checks_per_day) change.checks_per_day = toCap(day);
  if (toCap(month) !== member.checks_per_month) change.checks_per_month = toCap(month);
  const changed = Object.keys(change).length > 0;
  const offered = rolesOffered(me);

  function onSave(event: FormEvent) {
    event.preventDefault();
    update.mutate({ userId: member.user_id, ...change });
  }
  function onRemove() {
    if (window.confirm(`Remove ${member.email}? Their sessions in this organisation end at once; the keys they made stay.`)) remove.mutate(member.user_id);
  }

  const formId = `member-${member.user_id}`;
  return (
    <>
      <tr data-testid="member">
        <td className="px-3 py-2 font-medium">
          {member.email}
          {self && <span className="ml-2 text-xs text-slate-500">(you)</span>}
          <form id={formId} onSubmit={onSave} />
        </td>
        <td className="px-3 py-2">
          <select form={formId} aria-label={`Role of ${member.email}`} value={role} onChange={(e) => setRole(e.target.value as Role)} className={selectClass}>
            {(offered.includes(member.role) ? offered : [member.role, ...offered]).map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </td>
        <td className="px-3 py-2">
          <input
            form={formId}
            type="number"
            min={0}
            aria-label={`Checks a day for ${member.email}`}
            value={day}
            onChange={(e) => setDay(e.target.value)}
            placeholder="no cap"
            className={`${inputClass} w-28`}
          />
        </td>
        <td className="px-3 py-2">
          <input
            form={formId}
            type="number"
            min={0}
            aria-label={`Checks a month for ${member.email}`}
            value={month}
            onChange={(e) => setMonth(e.target.value)}
            placeholder="no cap"
            className={`${inputClass} w-28`}
          />
        </td>
        <td className="whitespace-nowrap px-3 py-2 text-slate-500">{formatDate(member.joined_at)}</td>
        <td className="whitespace-nowrap px-3 py-2 text-right">
          <span className="inline-flex gap-2">
            <Button
              type="submit"
              form={formId}
              variant="secondary"
              className="py-1!"
              disabled={!changed || update.isPending}
              aria-label={`Save ${member.email}`}
            >
              Save
            </Button>
            {!self && (
              <Button variant="danger" className="py-1!" onClick={onRemove} disabled={remove.isPending} aria-label={`Remove ${member.email}`}>
                Remove
              </Button>
            )}
          </span>
        </td>
      </tr>
      {(update.error || remove.error) && (
        <tr>
          <td colSpan={6} className="px-3 py-2">
            <ErrorNote error={update.error ?? remove.error} />
          </td>
        </tr>
      )}
    </>
  );
}

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
