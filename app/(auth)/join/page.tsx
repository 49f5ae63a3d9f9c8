import type { Metadata } from 'next';
import { getServerSession } from 'next-auth';
import { Suspense } from 'react';
import { JoinInvitation } from '@/components/auth/JoinInvitation';
import { authOptions } from '@/lib/auth/options';

export const metadata: Metadata = { title: 'Join an organisation' };

/** `/join?token=...`: the invitation link (docs/teams.md). Signed in or not: who is signed in decides what it offers. */
export default async function JoinPage() {
  const session = await getServerSession(authOptions);
  return (
    <Suspense>
      <JoinInvitation signedInAs={session?.user?.email ?? null} />
    </Suspense>
  );
}
