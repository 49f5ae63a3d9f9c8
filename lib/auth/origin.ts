import { AsyncLocalStorage } from 'node:async_hooks';
import { isIP } from 'node:net';
import { bareAddress, ipAllowed } from '../accounts/restrictions';
import { env } from '../config/env';
import type { ProxyTrust } from '../config/trust-proxy';
import { AppError } from '../errors/app-error';

/**
 * Where a request came in: scheme and host as this server saw them. Next's own server fills in
 * X-Forwarded-Host/-Proto/-For only when a request lacks them, so any client can send them; they
 * count only under EV_TRUST_PROXY (a proxy of ours overwrites them). Otherwise the host is the Host
 * header (which a browser sets and a cross-site page cannot change) and the scheme the request
 * URL's, which Next derives from the socket (or an X-Forwarded-Proto naming https: a client can
 * only make itself look secure, and a browser's Secure cookies never travel over plain HTTP anyway).
 */
export function requestOrigin(request: Request): { scheme: 'http' | 'https'; host: string } {
  const urlScheme = new URL(request.url).protocol === 'https:' ? 'https' : 'http';
  if (env().EV_TRUST_PROXY.kind !== 'none') {
    const proto = firstValue(request.headers.get('x-forwarded-proto'))?.toLowerCase();
    const host = firstValue(request.headers.get('x-forwarded-host')) ?? request.headers.get('host') ?? '';
    return { scheme: proto === 'https' || proto === 'http' ? proto : urlScheme, host: host.toLowerCase() };
  }
  return { scheme: urlScheme, host: (request.headers.get('host') ?? '').toLowerCase() };
}

function firstValue(header: string | null): string | undefined {
  return header?.split(',')[0]?.trim() || undefined;
}

/**
 * Browser writes must come from our own pages (CSRF); SameSite=Lax covers the rest. The Origin must
 * name this site's scheme and host. `optional`: a request without Origin passes (not a browser's
 * cross-site request; used where no cookie is involved, such as sign-up).
 */
export function assertSameOrigin(request: Request, { optional = false } = {}): void {
  const origin = request.headers.get('origin');
  if (origin === null && optional) return;
  const own = requestOrigin(request);
  let from: URL | null = null;
  try {
    from = origin ? new URL(origin) : null;
  } catch {
    from = null;
  }
  if (!from || from.protocol !== `${own.scheme}:` || from.host !== own.host) {
    throw new AppError('forbidden', 'Cross-site request refused: the Origin header does not match this site.');
  }
}

/**
 * The client address throttles, `allowed_ips` and a publishable key's visitors count by. Route
 * handlers never see the socket, and Next.js fills X-Forwarded-For in only when a request lacks it,
 * so every X-Forwarded-For entry the client wrote arrives as it wrote it, to the left of what our
 * proxies appended. One trust model (EV_TRUST_PROXY, lib/config/trust-proxy.ts): past the trusted
 * hops from the right of X-Forwarded-For (a count, or our proxies' networks), or the one header our
 * proxy writes; nothing else is read, so no header the client adds can win. Without a proxy of ours,
 * or when the place is empty or not an address, every client shares one bucket (`shared`): the
 * per-address limits then hold for all anonymous traffic together. docs/security.md, "The client address".
 */
export function clientAddress(request: { headers: Headers }): string {
  return addressFrom(request.headers, env().EV_TRUST_PROXY);
}

export function addressFrom(headers: Headers, trust: ProxyTrust): string {
  if (trust.kind === 'none') return 'shared';
  if (trust.kind === 'header') return valid(headers.get(trust.header));
  const hops =
    headers
      .get('x-forwarded-for')
      ?.split(',')
      .map((h) => h.trim()) ?? [];
  if (!hops.length) return 'shared';
  if (trust.kind === 'hops') return valid(hops[Math.max(0, hops.length - trust.hops)]);
  // the rightmost entry outside our proxies' networks; all inside: the leftmost (a client on our network)
  for (let i = hops.length - 1; i >= 0; i--) {
    const address = bareAddress(hops[i]!);
    if (!isIP(address)) return 'shared';
    if (i === 0 || !ipAllowed(trust.networks, address)) return address;
  }
  return 'shared';
}

/** One address (bare: no port, IPv4 as IPv4), or `shared` for anything else: a list, a name, nothing. */
function valid(value: string | null | undefined): string {
  const address = value ? bareAddress(value) : '';
  return isIP(address) ? address : 'shared';
}

const authRequestAddress = new AsyncLocalStorage<string>();

/**
 * Runs next-auth's handling of one request (lib/api/nextauth.ts) with its client address at hand:
 * next-auth's sign-in callbacks get no request, and the audit row of a single sign-on needs it.
 */
export function withAuthRequestAddress<T>(address: string, run: () => T): T {
  return authRequestAddress.run(address, run);
}

/** The client address of the next-auth request being handled; `shared` outside one. */
export function authRequestClientAddress(): string {
  return authRequestAddress.getStore() ?? 'shared';
}
