import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Bucket, BulkInput, KeyInput, KeyUpdateInput, PasswordChangeInput, WebhookInput } from '../sdk/src/index';
import { useSandbox } from './sandbox';
import { sdk } from './sdk';
import { isEnded } from '../jobs/states';

// One hook per endpoint, each one SDK call. Every key starts with the mode, so switching sandbox on
// or off shows that mode's data instead of the other's cached answers.
function useModeKey(...rest: unknown[]): unknown[] {
  return [useSandbox() ? 'sandbox' : 'live', ...rest];
}

/** A mutation that refreshes, once it succeeds, the queries it changes (named second in their keys). */
function useRefreshingMutation<T, R>(names: string[], mutationFn: (input: T) => Promise<R>) {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn, onSuccess: () => queryClient.invalidateQueries({ predicate: (q) => names.includes(q.queryKey[1] as string) }) });
}

const finished = (status: string | undefined) => isEnded(status);

export function useAccount() {
  return useQuery({ queryKey: useModeKey('account'), queryFn: () => sdk().account() });
}

export function useVerifySingle() {
  return useRefreshingMutation(['history', 'account'], (email: string) => sdk().verifySingle(email));
}

export function useSubmitBulk() {
  return useRefreshingMutation(['jobs', 'account'], (request: BulkInput) => sdk().bulk.submit(request));
}

export function useJobs(cursor?: string) {
  return useQuery({
    queryKey: useModeKey('jobs', cursor ?? null),
    queryFn: () => sdk().bulk.page({ limit: 20, cursor }),
    placeholderData: keepPreviousData,
  });
}

/** Polls a job's progress every second and stops once it is done. */
export function useJobStatus(jobId: string, enabled = true) {
  return useQuery({
    queryKey: useModeKey('job', jobId, 'status'),
    queryFn: () => sdk().bulk.status(jobId, { limit: 1 }),
    enabled,
    refetchInterval: (q) => (finished(q.state.data?.status) || q.state.error ? false : 1000),
  });
}

export function useJobResults(jobId: string, page: { limit: number; offset: number; filter?: Bucket }, enabled: boolean) {
  return useQuery({
    queryKey: useModeKey('job', jobId, 'results', page),
    queryFn: () => sdk().bulk.status(jobId, page),
    enabled,
    placeholderData: keepPreviousData,
  });
}

export function useCancelJob() {
  return useRefreshingMutation(['jobs', 'job'], (jobId: string) => sdk().bulk.cancel(jobId));
}

/** The history table's filters and page (dashboard-only: the SDK's `history.page` takes them). */
export interface HistoryQuery {
  email?: string;
  sandbox?: boolean;
  cursor?: string;
}

export function useHistory(query: HistoryQuery) {
  return useQuery({
    queryKey: useModeKey('history', query),
    queryFn: () => sdk().history.page({ limit: 25, ...query }),
    placeholderData: keepPreviousData,
  });
}

export function useApiKeys() {
  return useQuery({ queryKey: useModeKey('keys'), queryFn: () => sdk().keys.list() });
}

export function useCreateApiKey() {
  return useRefreshingMutation(['keys'], (body: KeyInput) => sdk().keys.create(body));
}

export function useUpdateApiKey() {
  return useRefreshingMutation(['keys'], ({ id, ...body }: KeyUpdateInput & { id: string }) => sdk().keys.update(id, body));
}

export function useRevokeApiKey() {
  return useRefreshingMutation(['keys'], (id: string) => sdk().keys.revoke(id));
}

export function useWebhooks() {
  return useQuery({ queryKey: useModeKey('webhooks'), queryFn: () => sdk().webhooks.list() });
}

export function useCreateWebhook() {
  return useRefreshingMutation(['webhooks'], (input: WebhookInput) => sdk().webhooks.create(input));
}

export function useDeleteWebhook() {
  return useRefreshingMutation(['webhooks'], (id: string) => sdk().webhooks.delete(id));
}

export function useTestWebhook() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => sdk().webhooks.test(id),
    onSuccess: (_result, id) => queryClient.invalidateQueries({ predicate: (q) => q.queryKey[1] === 'deliveries' && q.queryKey[2] === id }),
  });
}

/** Recent deliveries; polled while any is still pending so a test event's answer shows up. */
export function useDeliveries(webhookId: string) {
  return useQuery({
    queryKey: useModeKey('deliveries', webhookId),
    queryFn: () => sdk().webhooks.deliveries(webhookId),
    refetchInterval: (q) => (q.state.data?.some((d) => d.last_status === null && d.state !== 'failed') ? 1000 : 5000),
  });
}

/** The installation's egress health (port 25, reverse DNS, blocklists); the server caches it. */
export function useEgress(enabled = true) {
  return useQuery({
    queryKey: useModeKey('egress'),
    queryFn: () => sdk().egress(),
    enabled,
    staleTime: 60_000,
  });
}

export function useRecheckEgress() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => sdk().egress({ refresh: true }),
    onSuccess: (result) => queryClient.setQueriesData({ predicate: (q) => q.queryKey[1] === 'egress' }, result),
  });
}

export function useChangePassword() {
  return useMutation({ mutationFn: (body: PasswordChangeInput) => sdk().changePassword(body) });
}

export function useSignOutEverywhere() {
  return useMutation({ mutationFn: () => sdk().signOutEverywhere() });
}
