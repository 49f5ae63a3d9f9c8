import { keyAccess, type KeyAccess } from '../accounts/keys';
import { readSession, sessionIsCurrent } from '../auth/sessions';
import { AppError } from '../errors/app-error';
import { assertSameOrigin } from '../auth/origin';
import { db } from '../db/client';
import type { Role } from '../accounts/roles';
import { assertTwoFactorMet, sessionOrganisation } from '../auth/organisation';
import type { Operation } from './operation';
import { assertSignInMethodAllowed } from '../accounts/sso';

export interface Caller {
  /** the organisation (account) the request acts for: everything it touches is this account's */
  userId: string;
  /** the person acting: the signed-in user, or the key's maker (lib/accounts/members.ts) */
  actorId: string;
  /** the role the request acts with: the session's membership, or the key's own (lib/accounts/roles.ts) */
  role: Role;
  /** What the rate limit counts: the API key, or the dashboard session's user. */
  subject: string;
  via: 'key' | 'session';
  /** The key's scopes and restrictions (lib/api/key-access.ts enforces them); null for a dashboard session. */
  key: KeyAccess | null;
  /** a dashboard session's way of signing in (lib/accounts/sso.ts); absent for a key */
  signIn?: 'password' | 'oidc';
}

const unauthenticated = (message = 'Missing or invalid API key. Send Authorization: Bearer <key>.') => new AppError('authentication_error', message);

/** The key a request carries: `Authorization: Bearer`, or `?key=` (publishable keys only: a web page's widget puts it in the URL so a CORS preflight can be answered for its origins). */
function presentedKey(request: Request): { key: string; inQuery: boolean } | null {
  const header = request.headers.get('authorization');
  if (header) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) throw unauthenticated();
    return { key: match[1]!, inQuery: false };
  }
  const key = new URL(request.url).searchParams.get('key');
  return key ? { key, inQuery: true } : null;
}

/** A live, unexpired key (401 otherwise); a publishable key only where it was presented in the query or header. */
export async function keyCaller(request: Request): Promise<Caller | null> {
  const presented = presentedKey(request);
  if (!presented) return null;
  const key = await keyAccess(await db(), presented.key);
  if (!key) throw unauthenticated();
  if (presented.inQuery && key.type !== 'publishable')
    throw unauthenticated('Only publishable keys may be sent as ?key=; send a secret key as Authorization: Bearer <key>.');
  if (key.expiresAt !== null && key.expiresAt <= Date.now()) throw unauthenticated(`This API key expired at ${new Date(key.expiresAt).toISOString()}.`);
  return { userId: key.userId, actorId: key.createdBy ?? key.userId, role: key.role, subject: `key:${presented.key.slice(0, 16)}`, via: 'key', key };
}

/**
 * A Bearer key (or a publishable `?key=`), or (for the dashboard's own pages) the next-auth session
 * cookie, which must not have been signed out everywhere (lib/auth/sessions.ts), acting for the
 * organisation the person chose and still belongs to, with two-factor on when it requires it
 * (lib/auth/organisation.ts), unless `op` (the operation the route serves, null for an unknown path)
 * is exempt. A request with a key never reads the cookie.
 */
export async function authenticate(request: Request, op: Operation | null): Promise<Caller> {
  const byKey = await keyCaller(request);
  if (byKey) return byKey;
  const token = await readSession(request);
  if (!token?.sub || !(await sessionIsCurrent(token))) throw unauthenticated();
  // Cookie-authenticated writes must come from our own pages (CSRF); SameSite=Lax covers the rest.
  if (request.method !== 'GET' && request.method !== 'HEAD') assertSameOrigin(request);
  const { orgId, role } = await sessionOrganisation(request, token.sub);
  // an organisation that requires two-factor admits a person without it only to enrol or switch
  if (!op?.twoFactorExempt) await assertTwoFactorMet(orgId, token.sub);
  const signIn = token.via === 'oidc' ? 'oidc' : 'password';
  // An organisation that signs in through SSO only refuses password sessions (403 sso_required),
  // except the list of organisations, so the dashboard's switcher can still offer the others.
  if (!op?.ssoExempt) await assertSignInMethodAllowed(await db(), orgId, signIn);
  return { userId: orgId, actorId: token.sub, role, subject: `user:${token.sub}`, via: 'session', key: null, signIn };
}
