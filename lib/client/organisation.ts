import { useSyncExternalStore } from 'react';

// The organisation a dashboard session acts for is the `ev-org` cookie (lib/auth/organisation.ts
// reads it on every request), else the person's own. The header's switcher writes it; a 403
// `not_a_member` (removed from the chosen organisation) is kept here so the layout can offer the way
// back: clearing the cookie.
const ORG_COOKIE = 'ev-org';
const YEAR_SECONDS = 365 * 24 * 60 * 60;

function writeCookie(value: string, maxAge: number): void {
  const secure = window.location.protocol === 'https:' ? '; Secure' : '';
  // biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API is not in every browser the dashboard supports
  document.cookie = `${ORG_COOKIE}=${encodeURIComponent(value)}; Path=/; Max-Age=${maxAge}; SameSite=Lax${secure}`;
}

export function chooseOrganisation(id: string): void {
  writeCookie(id, YEAR_SECONDS);
  setNotMember(null);
}

/** Back to the person's own organisation (the server's default). */
export function clearOrganisation(): void {
  writeCookie('', 0);
  setNotMember(null);
}

let notMember: string | null = null;
const listeners = new Set<() => void>();

/** The server's message of a 403 `not_a_member`; null once the organisation is switched. */
export function setNotMember(message: string | null): void {
  if (notMember === message) return;
  notMember = message;
  for (const notify of listeners) notify();
}

function subscribe(notify: () => void): () => void {
  listeners.add(notify);
  return () => listeners.delete(notify);
}

export function useNotMember(): string | null {
  return useSyncExternalStore(
    subscribe,
    () => notMember,
    () => null,
  );
}
