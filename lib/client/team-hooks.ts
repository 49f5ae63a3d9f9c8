import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { roleAtLeast } from '../accounts/roles';
import type { MemberUpdate, Role } from '../sdk/src/index';
import { chooseOrganisation, clearOrganisation } from './organisation';
import { sdk } from './sdk';

// One hook per endpoint of the organisations, members and invitations API, each one SDK call.
// Keys start with 'org' (not the sandbox mode: people and roles are the same in both).

const ORGANISATIONS_KEY = ['org', 'organisations'];

export function useOrganisations() {
  return useQuery({ queryKey: ORGANISATIONS_KEY, queryFn: () => sdk().members.organisations(), staleTime: 30_000 });
}

/** The organisation the session acts for and the person's role in it; undefined until known. */
export function useCurrentOrganisation() {
  const organisations = useOrganisations();
  const data = organisations.data;
  return data?.data.find((o) => o.id === data.current);
}

/**
 * Whether the person's role reaches `needed` (docs/teams.md's table; each operation's `role` in
 * lib/api/operations/). False until the role is known, so a control never shows to be refused.
 */
export function useCan(needed: Role): boolean {
  const role = useCurrentOrganisation()?.role;
  return role !== undefined && roleAtLeast(role, needed);
}

/** Every query reloads for the organisation now chosen (or the person's own: `null`). */
function useReload() {
  const queryClient = useQueryClient();
  return () => {
    queryClient.cancelQueries();
    return queryClient.resetQueries();
  };
}

export function useSwitchOrganisation() {
  const reload = useReload();
  return (id: string | null) => {
    if (id === null) clearOrganisation();
    else chooseOrganisation(id);
    return reload();
  };
}

export function useRenameOrganisation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => sdk().members.renameOrganisation(name),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ORGANISATIONS_KEY }),
  });
}

export function useMembers() {
  return useQuery({ queryKey: ['org', 'members'], queryFn: () => sdk().members.list() });
}

function useRefresh(...names: string[]) {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ predicate: (q) => q.queryKey[0] === 'org' && names.includes(q.queryKey[1] as string) });
}

export function useUpdateMember() {
  const onSuccess = useRefresh('members', 'organisations');
  return useMutation({ mutationFn: ({ userId, ...change }: MemberUpdate & { userId: string }) => sdk().members.update(userId, change), onSuccess });
}

export function useRemoveMember() {
  const onSuccess = useRefresh('members');
  return useMutation({ mutationFn: (userId: string) => sdk().members.remove(userId), onSuccess });
}

/** Leaves the current organisation, then acts for the person's own. */
export function useLeaveOrganisation() {
  const switchTo = useSwitchOrganisation();
  return useMutation({ mutationFn: () => sdk().members.leave(), onSuccess: () => switchTo(null) });
}

export function useInvitations(enabled: boolean) {
  return useQuery({ queryKey: ['org', 'invitations'], queryFn: () => sdk().invitations.list(), enabled });
}

export function useInvite() {
  const onSuccess = useRefresh('invitations');
  return useMutation({ mutationFn: (input: { email: string; role: Role }) => sdk().invitations.create(input), onSuccess });
}

export function useRevokeInvitation() {
  const onSuccess = useRefresh('invitations');
  return useMutation({ mutationFn: (id: string) => sdk().invitations.revoke(id), onSuccess });
}
