import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { OrganisationUpdateInput } from '../sdk/src/index';
import { sdk } from './sdk';

/** The organisation's single sign-on settings (GET /v1/organisation). */
export function useOrganisationSettings() {
  return useQuery({ queryKey: ['live', 'organisation', 'settings'], queryFn: () => sdk().organisation() });
}

/** Owners: PATCH /v1/organisation. */
export function useUpdateOrganisation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: OrganisationUpdateInput) => sdk().updateOrganisation(input),
    onSuccess: (data) => queryClient.setQueryData(['live', 'organisation', 'settings'], data),
  });
}
