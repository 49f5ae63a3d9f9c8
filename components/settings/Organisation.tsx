'use client';

import { useRouter } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import { useCurrentOrganisation, useLeaveOrganisation, useRenameOrganisation } from '@/lib/client/team-hooks';
import { Button, Card, ErrorNote, inputClass, labelClass } from '../ui';

/** The organisation you act for: its name (owners rename it) and leaving it. */
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
