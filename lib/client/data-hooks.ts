import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { sdk } from './sdk';

// One hook per endpoint of retention and erasure (docs/retention.md), each one SDK call. The export
// is a plain link to GET /v1/export: the browser downloads the zip with the session cookie.

const RETENTION_KEY = ['account', 'retention'];

/** The retention setting and the lists deleted within 7 days; refreshed hourly for the banner. */
export function useRetention() {
  return useQuery({ queryKey: RETENTION_KEY, queryFn: () => sdk().retention(), refetchInterval: 3_600_000 });
}

export function useSetRetention() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (days: number | null) => sdk().setRetention(days),
    onSuccess: (state) => queryClient.setQueryData(RETENTION_KEY, state),
  });
}

export function useEraseAddress() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (email: string) => sdk().eraseAddress(email),
    // results, lists and history may have lost rows
    onSuccess: () => queryClient.invalidateQueries(),
  });
}
