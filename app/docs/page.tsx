import type { Metadata } from 'next';
import Link from 'next/link';
import { Logo } from '@/components/layout/Logo';
import { ApiReference } from '@/components/docs/ApiReference';
import { buildOpenApi } from '@/lib/api/openapi';

export const metadata: Metadata = { title: 'API reference' };

/** The API reference, rendered from the OpenAPI document; public like the document itself. */
export default function DocsPage() {
  return (
    <>
      <header className="border-b border-slate-200 bg-white">
        <div className="mx-auto flex max-w-6xl flex-wrap items-center gap-x-6 gap-y-2 px-4 py-3">
          <Link href="/" className="flex items-center gap-2 font-bold text-slate-900">
            <Logo />
            <span>Verifier</span>
          </Link>
          <span className="text-sm font-medium text-slate-600">API reference</span>
          <nav aria-label="Docs" className="ml-auto flex items-center gap-4 text-sm">
            <a href="/v1/openapi.json" className="font-medium text-indigo-700 hover:underline">
              openapi.json
            </a>
            <Link href="/lists" className="font-medium text-slate-600 hover:text-slate-900">
              Dashboard
            </Link>
          </nav>
        </div>
      </header>
      <main id="main" className="mx-auto max-w-6xl px-2 py-4">
        <ApiReference spec={buildOpenApi()} />
      </main>
    </>
  );
}
