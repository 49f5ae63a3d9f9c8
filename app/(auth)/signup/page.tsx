import type { Metadata } from 'next';
import { Suspense } from 'react';
import { connection } from 'next/server';
import { AuthForm } from '@/components/auth/AuthForm';
import { oidcSettings } from '@/lib/auth/oidc';

export const metadata: Metadata = { title: 'Create account' };

export default async function SignUpPage() {
  // the installation's configuration at run time, not at build time
  await connection();
  const sso = oidcSettings()?.name ?? null;
  return (
    <Suspense>
      <AuthForm mode="signup" sso={sso} />
    </Suspense>
  );
}
