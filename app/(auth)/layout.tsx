import type { ReactNode } from 'react';
import { Logo } from '@/components/layout/Logo';

/** The signed-out pages' frame; sign-in and sign-up send a signed-in person on to /lists, the join page does not (it may be theirs to accept). */
export default function AuthLayout({ children }: { children: ReactNode }) {
  return (
    <main className="flex min-h-screen flex-col items-center justify-center bg-gradient-to-b from-indigo-50 to-slate-50 px-4 py-12">
      <div className="mb-8 flex items-center gap-3">
        <Logo className="h-10 w-10" />
        <span className="text-2xl font-bold tracking-tight text-slate-900">Verifier</span>
      </div>
      <div className="w-full max-w-sm rounded-2xl bg-white p-8 shadow-lg ring-1 ring-slate-200">{children}</div>
      <p className="mt-6 max-w-sm text-center text-xs text-slate-500">
        Check addresses before you send: syntax, domain, mail server and mailbox, with a sandbox to build against.{' '}
        <a href="/docs" className="font-medium text-indigo-700 hover:underline">
          API reference
        </a>
      </p>
    </main>
  );
}
