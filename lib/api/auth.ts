import { userIdForKey } from '../accounts/keys';
import { readSession, sessionIsCurrent } from '../auth/sessions';
import { AppError } from '../errors/errors';
import { assertSameOrigin } from '../auth/origin';
import { db } from '../db/client';

export interface Caller {
  userId: string;
  /** What the rate limit counts: the API key, or the dashboard session's user. */
  subject: string;
  via: 'key' | 'session';
}

const unauthenticated = () =>
  new AppError('authentication_error', 'Missing or invalid API key. Send Authorization: Bearer <key>.');

/**
 * A Bearer key, or (for the dashboard's own pages) the next-auth session cookie, which must not have
 * been signed out everywhere (lib/auth/sessions.ts).
 */
export async function authenticate(request: Request): Promise<Caller> {
  const header = request.headers.get('authorization');
  if (header) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    const userId = match ? await userIdForKey(await db(), match[1]!) : null;
    if (!userId) throw unauthenticated();
    return { userId, subject: `key:${match![1]!.slice(0, 16)}`, via: 'key' };
  }
  const token = await readSession(request);
  if (!token?.sub || !(await sessionIsCurrent(token))) throw unauthenticated();
  // Cookie-authenticated writes must come from our own pages (CSRF); SameSite=Lax covers the rest.
  if (request.method !== 'GET' && request.method !== 'HEAD') assertSameOrigin(request);
  return { userId: token.sub, subject: `user:${token.sub}`, via: 'session' };
}
