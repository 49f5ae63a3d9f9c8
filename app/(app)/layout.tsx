import { redirect } from 'next/navigation';
import { getServerSession } from 'next-auth';
import type { ReactNode } from 'react';
import { Header } from '@/components/layout/Header';
import { QuotaBanner } from '@/components/layout/QuotaBanner';
import { RetentionBanner } from '@/components/layout/RetentionBanner';
import { authOptions } from '@/lib/auth/options';

/** Every page in this group needs a session; without one the visitor goes to sign in. */
export default async function AppLayout({ children }: { children: ReactNode }) {
  const session = await getServerSession(authOptions);
  if (!session?.user?.email) redirect('/signin');
  return (
    <>
      <Header email={session.user.email} />
      <QuotaBanner />
      <RetentionBanner />
      <main id="main" className="mx-auto max-w-6xl px-4 py-8">
        {children}
      </main>
    </>
  );
}
