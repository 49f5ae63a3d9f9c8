import { ROLES, roleAtLeast, roleRank } from '@/lib/accounts/roles';
import type { Role } from '@/lib/sdk/src/index';

// Who may manage whom (docs/teams.md; the API checks it again, lib/accounts/members.ts): owners
// everyone, admins members and viewers; a role offered is at most your own, and at most `member`
// from an admin.
export function mayManage(me: Role, target: Role): boolean {
  return me === 'owner' || (me === 'admin' && roleRank(target) < roleRank('admin'));
}

export function rolesOffered(me: Role): Role[] {
  return ROLES.filter((role) => (me === 'owner' ? true : roleAtLeast(me, 'admin') && roleRank(role) <= roleRank('member')));
}
