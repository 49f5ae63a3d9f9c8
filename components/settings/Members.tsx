'use client';

import Link from 'next/link';
import { useSession } from 'next-auth/react';
import { useState, type FormEvent } from 'react';
import { useCan, useCurrentOrganisation, useMembers, useRemoveMember, useUpdateMember } from '@/lib/client/team-hooks';
import type { Member, MemberUpdate, Role } from '@/lib/sdk/src/index';
import { Button, Card, DataTable, ErrorNote, formatDate, inputClass, linkButton, number, selectClass } from '../ui';
import { mayManage, rolesOffered } from './member-roles';

// The organisation's members: a link from Settings, and the table where admins and owners change
// roles and caps (the organisation itself: Organisation.tsx; invitations: Invitations.tsx).

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
