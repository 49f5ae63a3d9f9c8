'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { signOut } from 'next-auth/react';
import { SandboxBanner, SandboxToggle } from './SandboxToggle';
import { Logo } from './Logo';
import { NotMemberBanner, OrganisationSwitcher } from './OrganisationSwitcher';
import { useCurrentOrganisation } from '@/lib/client/team-hooks';
import { cx } from '../ui';

// A viewer cannot verify (docs/teams.md): the single check is not offered to them.
const links = [
  { href: '/lists', label: 'Lists' },
  { href: '/check', label: 'Single check', member: true },
  { href: '/history', label: 'History' },
  { href: '/settings', label: 'Settings' },
  { href: '/docs', label: 'API' },
];

export function Header({ email }: { email: string }) {
  const pathname = usePathname();
  const viewer = useCurrentOrganisation()?.role === 'viewer';
  const isCurrent = (href: string) => pathname === href || pathname.startsWith(`${href}/`) || (href === '/lists' && pathname.startsWith('/jobs'));
  return (
    <header className="sticky top-0 z-20 bg-white/95 shadow-sm backdrop-blur">
      <a href="#main" className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:rounded focus:bg-white focus:px-3 focus:py-2">
        Skip to content
      </a>
      <div className="mx-auto flex max-w-6xl flex-wrap items-center gap-x-6 gap-y-2 px-4 py-3">
        <Link href="/lists" className="flex items-center gap-2 font-bold text-slate-900">
          <Logo />
          <span>Verifier</span>
        </Link>
        <nav aria-label="Main" className="order-last -mx-4 w-full overflow-x-auto px-4 sm:order-none sm:mx-0 sm:w-auto sm:px-0">
          <ul className="flex gap-1">
            {links
              .filter((link) => !(viewer && link.member))
              .map((link) => (
                <li key={link.href}>
                  <Link
                    href={link.href}
                    aria-current={isCurrent(link.href) ? 'page' : undefined}
                    className={cx(
                      'block whitespace-nowrap rounded-lg px-3 py-1.5 text-sm font-medium',
                      isCurrent(link.href) ? 'bg-indigo-50 text-indigo-700' : 'text-slate-600 hover:bg-slate-100 hover:text-slate-900',
                    )}
                  >
                    {link.label}
                  </Link>
                </li>
              ))}
          </ul>
        </nav>
        <div className="ml-auto flex items-center gap-3">
          <OrganisationSwitcher />
          <SandboxToggle />
          <span className="hidden max-w-40 truncate text-sm text-slate-500 md:inline" title={email}>
            {email}
          </span>
          <button
            type="button"
            onClick={() => signOut({ callbackUrl: '/signin' })}
            className="rounded-lg px-2 py-1.5 text-sm font-medium text-slate-600 hover:bg-slate-100 hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-indigo-600"
          >
            Sign out
          </button>
        </div>
      </div>
      <SandboxBanner />
      <NotMemberBanner />
    </header>
  );
}
