import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { MonitorInput, MonitorUpdate } from '../sdk/src/index';
import { useSandbox } from './sandbox';
import { sdk } from './sdk';

// One hook per endpoint of monitors and the reuse of fresh results, each one SDK call. Keys start
// with the mode, then 'monitors' (or 'account'), as hooks.ts makes them.

function useMonitorKey(...rest: unknown[]): unknown[] {
  return [useSandbox() ? 'sandbox' : 'live', 'monitors', ...rest];
}

function useRefreshMonitors() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ predicate: (q) => q.queryKey[1] === 'monitors' });
}

export function useMonitors() {
  return useQuery({ queryKey: useMonitorKey(), queryFn: () => sdk().monitors.list() });
}

export function useMonitor(id: string | undefined) {
  return useQuery({ queryKey: useMonitorKey(id), queryFn: () => sdk().monitors.get(id!), enabled: id !== undefined });
}

export function useCreateMonitor() {
  const onSuccess = useRefreshMonitors();
  return useMutation({ mutationFn: (input: MonitorInput) => sdk().monitors.create(input), onSuccess });
}

export function useUpdateMonitor() {
  const onSuccess = useRefreshMonitors();
  return useMutation({ mutationFn: ({ id, change }: { id: string; change: MonitorUpdate }) => sdk().monitors.update(id, change), onSuccess });
}

export function useDeleteMonitor() {
  const onSuccess = useRefreshMonitors();
  return useMutation({ mutationFn: (id: string) => sdk().monitors.delete(id), onSuccess });
}

export function useReuse() {
  return useQuery({ queryKey: ['live', 'account', 'reuse'], queryFn: () => sdk().reuse() });
}

export function useSetReuse() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (days: number | null) => sdk().setReuse(days),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['live', 'account', 'reuse'] }),
  });
}
