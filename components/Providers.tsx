'use client';

import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { SessionProvider } from 'next-auth/react';
import { useState, type ReactNode } from 'react';
import { EmailVerifierError } from '@/lib/sdk/src/index';
import { setNotMember } from '@/lib/client/organisation';

// An expired session turns every call into a 401; send the user to sign in once instead of
// showing the same error in every panel. A 403 `not_a_member` (removed from the organisation the
// header chose) is shown once, by the header, with the way back to the person's own.
function onApiError(error: Error): void {
  if (error instanceof EmailVerifierError && error.code === 'not_a_member') setNotMember(error.message);
  if (error instanceof EmailVerifierError && error.status === 401 && typeof window !== 'undefined') {
    window.location.assign(`/signin?callbackUrl=${encodeURIComponent(window.location.pathname)}`);
  }
}

export function Providers({ children }: { children: ReactNode }) {
  const [queryClient] = useState(
    () =>
      new QueryClient({
        queryCache: new QueryCache({ onError: onApiError }),
        mutationCache: new MutationCache({ onError: onApiError }),
        defaultOptions: {
          queries: { staleTime: 5_000, retry: (count, error) => !(error instanceof EmailVerifierError && error.status < 500) && count < 2 },
        },
      }),
  );
  return (
    <SessionProvider>
      <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
    </SessionProvider>
  );
}
