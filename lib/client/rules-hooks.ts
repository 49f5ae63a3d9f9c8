import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { RuleInput } from '../sdk/src/index';
import { useSandbox } from './sandbox';
import { sdk } from './sdk';

// One hook per endpoint of the rules, quota and usage API, each one SDK call.

const QUOTA_KEY = ['live', 'account', 'quota'];

export function useRules() {
  return useQuery({ queryKey: ['account', 'rules'], queryFn: () => sdk().rules.list() });
}

function useInvalidateRules() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: ['account', 'rules'] });
}

export function useAddRule() {
  const onSuccess = useInvalidateRules();
  return useMutation({ mutationFn: (rule: RuleInput) => sdk().rules.create(rule), onSuccess });
}

/** The SDK sends the rules a thousand at a time; answers how many were new. */
export function useImportRules() {
  const onSuccess = useInvalidateRules();
  return useMutation({
    mutationFn: async (rules: RuleInput[]) => ({ created: (await sdk().rules.import(rules)).created, sent: rules.length }),
    onSuccess,
  });
}

export function useDeleteRule() {
  const onSuccess = useInvalidateRules();
  return useMutation({ mutationFn: (id: string) => sdk().rules.delete(id), onSuccess });
}

// Keys as hooks.ts makes them (mode, then name): 'account' second, so a check or a list refreshes them.
export function useUsage(from: string, to: string) {
  const mode = useSandbox() ? 'sandbox' : 'live';
  return useQuery({ queryKey: [mode, 'account', 'usage', from, to], queryFn: () => sdk().usage({ from, to }) });
}

/** Today's charged checks split by person, with the month's and their caps (GET /v1/usage?by=member). */
export function useMemberUsage() {
  const mode = useSandbox() ? 'sandbox' : 'live';
  const today = new Date().toISOString().slice(0, 10);
  return useQuery({ queryKey: [mode, 'account', 'usage', 'members', today], queryFn: () => sdk().usage({ from: today, to: today, by: 'member' }) });
}

/** The quota and its warning; production only (the sandbox has no quota). Refreshed every minute for the banner. */
export function useQuota() {
  const sandbox = useSandbox();
  return useQuery({ queryKey: QUOTA_KEY, queryFn: () => sdk().quota(), enabled: !sandbox, refetchInterval: 60_000 });
}

export function useSetQuotaWarning() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (warningBelow: number | null) => sdk().setQuotaWarning(warningBelow),
    onSuccess: (state) => queryClient.setQueryData(QUOTA_KEY, state),
  });
}
