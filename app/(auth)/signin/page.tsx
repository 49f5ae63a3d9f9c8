import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { getServerSession } from 'next-auth';
import { Suspense } from 'react';
import { connection } from 'next/server';
import { AuthForm } from '@/components/auth/AuthForm';
import { authOptions } from '@/lib/auth/options';
import { oidcSettings } from '@/lib/auth/oidc';

export const metadata: Metadata = { title: 'Sign in' };

export default async function SignInPage() {
  if (await getServerSession(authOptions)) redirect('/lists');
  // the installation's configuration at run time, not at build time
  await connection();
  const sso = oidcSettings()?.name ?? null;
  return (
    <Suspense>
      <AuthForm mode="signin" sso={sso} />
    </Suspense>
  );
}
