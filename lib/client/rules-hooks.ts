import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { QuotaState, Rule, RuleImport, RuleInput, UsageReport } from '@/lib/sdk/src/rules-types';
import { api } from './api';
import { useSandbox } from './sandbox';

// One hook per endpoint of the rules, quota and usage API (the types are the SDK's, checked against the contract).

const IMPORT_BATCH = 1000;
const QUOTA_KEY = ['live', 'account', 'quota'];

export function useRules() {
  return useQuery({ queryKey: ['account', 'rules'], queryFn: () => api<{ data: Rule[] }>('/v1/rules') });
}

function useInvalidateRules() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: ['account', 'rules'] });
}

export function useAddRule() {
  const onSuccess = useInvalidateRules();
  return useMutation({ mutationFn: (rule: RuleInput) => api<Rule>('/v1/rules', { method: 'POST', body: rule }), onSuccess });
}

/** Sends the rules a thousand at a time; answers how many were new. */
export function useImportRules() {
  const onSuccess = useInvalidateRules();
  return useMutation({
    mutationFn: async (rules: RuleInput[]) => {
      let created = 0;
      for (let start = 0; start < rules.length; start += IMPORT_BATCH) {
        created += (await api<RuleImport>('/v1/rules/import', { method: 'POST', body: { rules: rules.slice(start, start + IMPORT_BATCH) } })).created;
      }
      return { created, sent: rules.length };
    },
    onSuccess,
  });
}

export function useDeleteRule() {
  const onSuccess = useInvalidateRules();
  return useMutation({ mutationFn: (id: string) => api<unknown>(`/v1/rules/${encodeURIComponent(id)}`, { method: 'DELETE' }), onSuccess });
}

// Keys as hooks.ts makes them (mode, then name): 'account' second, so a check or a list refreshes them.
export function useUsage(from: string, to: string) {
  const mode = useSandbox() ? 'sandbox' : 'live';
  return useQuery({ queryKey: [mode, 'account', 'usage', from, to], queryFn: () => api<UsageReport>('/v1/usage', { query: { from, to } }) });
}

/** The quota and its warning; production only (the sandbox has no quota). Refreshed every minute for the banner. */
export function useQuota() {
  const sandbox = useSandbox();
  return useQuery({ queryKey: QUOTA_KEY, queryFn: () => api<QuotaState>('/v1/account/quota'), enabled: !sandbox, refetchInterval: 60_000 });
}

export function useSetQuotaWarning() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (warningBelow: number | null) => api<QuotaState>('/v1/account/quota', { method: 'POST', body: { warning_below: warningBelow } }),
    onSuccess: (state) => queryClient.setQueryData(QUOTA_KEY, state),
  });
}
