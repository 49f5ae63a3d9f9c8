import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { TwoFactorDisableInput } from '../sdk/src/index';
import { sdk } from './sdk';

// The signed-in person's two-factor sign-in, one SDK call per hook. It is the person's, not the
// mode's: one key for both modes. Any change refreshes every query (an organisation's requirement
// opens or closes the rest of the dashboard).

const KEY = ['person', 'two-factor'];

function useRefreshAll() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries();
}

export function useTwoFactor() {
  return useQuery({ queryKey: KEY, queryFn: () => sdk().twoFactor.state() });
}

export function useStartTwoFactor() {
  return useMutation({ mutationFn: () => sdk().twoFactor.start() });
}

export function useConfirmTwoFactor() {
  const onSuccess = useRefreshAll();
  return useMutation({ mutationFn: (code: string) => sdk().twoFactor.confirm(code), onSuccess });
}

export function useDisableTwoFactor() {
  const onSuccess = useRefreshAll();
  return useMutation({ mutationFn: (input: TwoFactorDisableInput) => sdk().twoFactor.disable(input), onSuccess });
}

export function useRequireTwoFactor() {
  const onSuccess = useRefreshAll();
  return useMutation({ mutationFn: (required: boolean) => sdk().twoFactor.requireForOrganisation(required), onSuccess });
}
