import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { getServerSession } from 'next-auth';
import { Suspense } from 'react';
import { AuthForm } from '@/components/auth/AuthForm';
import { authOptions } from '@/lib/auth/options';

export const metadata: Metadata = { title: 'Sign in' };

export default async function SignInPage() {
  if (await getServerSession(authOptions)) redirect('/lists');
  return (
    <Suspense>
      <AuthForm mode="signin" />
    </Suspense>
  );
}
