import { getToken } from 'next-auth/jwt';
import type { NextRequest } from 'next/server';
import { userIdForKey } from '../accounts';
import { sessionSecret } from '../secret';
import { ApiError } from './errors';

export interface Caller {
  userId: string;
  /** What the rate limit counts: the API key, or the dashboard session's user. */
  subject: string;
  via: 'key' | 'session';
}

const unauthenticated = () =>
  new ApiError('authentication_error', 'Missing or invalid API key. Send Authorization: Bearer <key>.');

/** A Bearer key, or (for the dashboard's own pages) the next-auth session cookie. */
export async function authenticate(request: Request): Promise<Caller> {
  const header = request.headers.get('authorization');
  if (header) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    const userId = match ? await userIdForKey(match[1]!) : null;
    if (!userId) throw unauthenticated();
    return { userId, subject: `key:${match![1]!.slice(0, 16)}`, via: 'key' };
  }
  const token = await getToken({ req: request as NextRequest, secret: sessionSecret() }).catch(() => null);
  if (!token?.sub) throw unauthenticated();
  if (request.method !== 'GET' && request.method !== 'HEAD') assertSameOrigin(request);
  return { userId: token.sub, subject: `user:${token.sub}`, via: 'session' };
}

/** Cookie-authenticated writes must come from our own pages (CSRF); SameSite=Lax covers the rest. */
function assertSameOrigin(request: Request): void {
  const origin = request.headers.get('origin');
  const host = request.headers.get('x-forwarded-host') ?? request.headers.get('host');
  let originHost: string | null = null;
  try {
    originHost = origin ? new URL(origin).host : null;
  } catch {
    originHost = null;
  }
  if (!originHost || originHost !== host) {
    throw new ApiError('forbidden', 'Cross-site request refused: the Origin header does not match this site.');
  }
}
