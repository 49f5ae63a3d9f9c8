import type { Metadata } from 'next';
import { Suspense } from 'react';
import { connection } from 'next/server';
import { AuthForm } from '@/components/auth/AuthForm';
import { oidcSettings } from '@/lib/auth/oidc';

export const metadata: Metadata = { title: 'Sign in' };

export default async function SignInPage() {
  // the installation's configuration at run time, not at build time
  await connection();
  const sso = oidcSettings()?.name ?? null;
  return (
    <Suspense>
      <AuthForm mode="signin" sso={sso} />
    </Suspense>
  );
}
