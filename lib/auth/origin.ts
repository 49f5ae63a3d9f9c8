import { env } from '../config/env';
import { AppError } from '../errors/errors';

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
  if (env().EV_TRUST_PROXY) {
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
 * The client address throttles count by. Route handlers never see the socket, and without a proxy
 * of ours every X-Forwarded-For/X-Real-IP value is the client's own word (rotating it would dodge
 * any per-address limit). So: behind a trusted proxy (EV_TRUST_PROXY) the last X-Forwarded-For hop
 * (the one that proxy appended), else its X-Real-IP; without one, every client shares one bucket
 * (`shared`): the per-address limits then hold for all anonymous traffic together. docs/security.md, "The client address".
 */
export function clientAddress(request: { headers: Headers }): string {
  if (!env().EV_TRUST_PROXY) return 'shared';
  const hops = request.headers.get('x-forwarded-for')?.split(',').map((h) => h.trim()).filter(Boolean) ?? [];
  return hops[hops.length - 1] ?? request.headers.get('x-real-ip')?.trim() ?? 'shared';
}
