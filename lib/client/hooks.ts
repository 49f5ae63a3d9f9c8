import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from './api';
import { useSandbox } from './sandbox';
import type {
  AccountUsage, ApiKeyInfo, KeyBody, BulkRequest, BulkSubmitted, Delivery, EgressStatus, HistoryItem, JobListItem, JobStatus,
  Page, SingleResult, VerdictFilter, Webhook,
} from './types';

// One hook per endpoint. Every key starts with the mode, so switching sandbox on or off shows that
// mode's data instead of the other's cached answers.
function useModeKey(...rest: unknown[]): unknown[] {
  return [useSandbox() ? 'sandbox' : 'live', ...rest];
}

const finished = (status: string | undefined) => status === 'completed' || status === 'failed' || status === 'cancelled';

export function useAccount() {
  return useQuery({ queryKey: useModeKey('account'), queryFn: () => api<AccountUsage>('/v1/account') });
}

export function useVerifySingle() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (email: string) => api<SingleResult>('/v1/verify/single', { method: 'POST', body: { email } }),
    onSuccess: () => queryClient.invalidateQueries({ predicate: (q) => ['history', 'account'].includes(q.queryKey[1] as string) }),
  });
}

export function useSubmitBulk() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (request: BulkRequest) => api<BulkSubmitted>('/v1/verify/bulk', { method: 'POST', body: request }),
    onSuccess: () => queryClient.invalidateQueries({ predicate: (q) => ['jobs', 'account'].includes(q.queryKey[1] as string) }),
  });
}

export function useJobs(cursor?: string) {
  return useQuery({
    queryKey: useModeKey('jobs', cursor ?? null),
    queryFn: () => api<Page<JobListItem>>('/v1/verify/bulk', { query: { limit: 20, cursor } }),
    placeholderData: keepPreviousData,
  });
}

/** Polls a job's progress every second and stops once it is done. */
export function useJobStatus(jobId: string, enabled = true) {
  return useQuery({
    queryKey: useModeKey('job', jobId, 'status'),
    queryFn: () => api<JobStatus>(`/v1/verify/bulk/status/${encodeURIComponent(jobId)}`, { query: { limit: 1 } }),
    enabled,
    refetchInterval: (q) => (finished(q.state.data?.status) || q.state.error ? false : 1000),
  });
}

export function useJobResults(jobId: string, page: { limit: number; offset: number; filter?: VerdictFilter }, enabled: boolean) {
  return useQuery({
    queryKey: useModeKey('job', jobId, 'results', page),
    queryFn: () => api<JobStatus>(`/v1/verify/bulk/status/${encodeURIComponent(jobId)}`, { query: page }),
    enabled,
    placeholderData: keepPreviousData,
  });
}

export function useCancelJob() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (jobId: string) => api<unknown>(`/v1/verify/bulk/${encodeURIComponent(jobId)}`, { method: 'DELETE' }),
    onSuccess: () => queryClient.invalidateQueries({ predicate: (q) => ['jobs', 'job'].includes(q.queryKey[1] as string) }),
  });
}

export interface HistoryQuery {
  email?: string;
  sandbox?: 'true' | 'false';
  cursor?: string;
}

export function useHistory(query: HistoryQuery) {
  return useQuery({
    queryKey: useModeKey('history', query),
    queryFn: () => api<Page<HistoryItem>>('/v1/history', { query: { limit: 25, ...query } }),
    placeholderData: keepPreviousData,
  });
}

export function useApiKeys() {
  return useQuery({ queryKey: useModeKey('keys'), queryFn: () => api<{ data: ApiKeyInfo[] }>('/v1/keys') });
}

export function useCreateApiKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: KeyBody) => api<ApiKeyInfo & { key: string }>('/v1/keys', { method: 'POST', body }),
    onSuccess: () => queryClient.invalidateQueries({ predicate: (q) => q.queryKey[1] === 'keys' }),
  });
}

export function useUpdateApiKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, ...body }: KeyBody & { id: string }) => api<ApiKeyInfo>(`/v1/keys/${encodeURIComponent(id)}`, { method: 'PATCH', body }),
    onSuccess: () => queryClient.invalidateQueries({ predicate: (q) => q.queryKey[1] === 'keys' }),
  });
}

export function useRevokeApiKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<unknown>(`/v1/keys/${encodeURIComponent(id)}`, { method: 'DELETE' }),
    onSuccess: () => queryClient.invalidateQueries({ predicate: (q) => q.queryKey[1] === 'keys' }),
  });
}

export function useWebhooks() {
  return useQuery({ queryKey: useModeKey('webhooks'), queryFn: () => api<{ data: Webhook[] }>('/v1/webhooks') });
}

export function useCreateWebhook() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: { url: string; description?: string; events?: string[] }) => api<Webhook>('/v1/webhooks', { method: 'POST', body: input }),
    onSuccess: () => queryClient.invalidateQueries({ predicate: (q) => q.queryKey[1] === 'webhooks' }),
  });
}

export function useDeleteWebhook() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<unknown>(`/v1/webhooks/${encodeURIComponent(id)}`, { method: 'DELETE' }),
    onSuccess: () => queryClient.invalidateQueries({ predicate: (q) => q.queryKey[1] === 'webhooks' }),
  });
}

export function useTestWebhook() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<unknown>(`/v1/webhooks/${encodeURIComponent(id)}/test`, { method: 'POST', body: {} }),
    onSuccess: (_result, id) => queryClient.invalidateQueries({ predicate: (q) => q.queryKey[1] === 'deliveries' && q.queryKey[2] === id }),
  });
}

/** Recent deliveries; polled while any is still pending so a test event's answer shows up. */
export function useDeliveries(webhookId: string) {
  return useQuery({
    queryKey: useModeKey('deliveries', webhookId),
    queryFn: () => api<{ data: Delivery[] }>(`/v1/webhooks/${encodeURIComponent(webhookId)}/deliveries`),
    refetchInterval: (q) => (q.state.data?.data.some((d) => d.last_status === null && d.state !== 'failed') ? 1000 : 5000),
  });
}

/** The installation's egress health (port 25, reverse DNS, blocklists); the server caches it. */
export function useEgress(enabled = true) {
  return useQuery({
    queryKey: useModeKey('egress'),
    queryFn: () => api<{ data: EgressStatus }>('/v1/egress'),
    enabled,
    staleTime: 60_000,
  });
}

export function useRecheckEgress() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api<{ data: EgressStatus }>('/v1/egress', { query: { refresh: true } }),
    onSuccess: (result) => queryClient.setQueriesData({ predicate: (q) => q.queryKey[1] === 'egress' }, result),
  });
}

export function useChangePassword() {
  return useMutation({
    mutationFn: (body: { current_password: string; new_password: string }) =>
      api<{ success: boolean; message: string }>('/v1/account/password', { method: 'POST', body }),
  });
}

export function useSignOutEverywhere() {
  return useMutation({
    mutationFn: () => api<{ success: boolean; message: string }>('/v1/account/sessions', { method: 'DELETE' }),
  });
}
