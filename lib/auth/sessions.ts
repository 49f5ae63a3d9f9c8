import { encode, getToken, type JWT } from 'next-auth/jwt';
import type { NextRequest } from 'next/server';
import { requestOrigin } from './origin';
import { db } from '../db/client';
import { sessionSecret } from '../config/secret';

/**
 * Dashboard sessions are JWTs in a cookie; each carries the user's session version (`sv`) from
 * sign-in. "Sign out everywhere" and a password change bump the version on the user row, and a
 * session whose version is behind stops working.
 */
declare module 'next-auth/jwt' {
  interface JWT {
    /** the user's session version at sign-in */
    sv?: number;
    /** how the session signed in (absent in sessions older than single sign-on: by password) */
    via?: 'password' | 'oidc';
  }
}

export const SESSION_MAX_AGE_S = 30 * 24 * 3600;

// Every /v1 call from the dashboard asks; a short cache keeps that off the database, and a revoked
// session stops working within this time on other processes (at once in the one that revoked it).
export const VERSION_CACHE_MS = 2_000;
const versions = new Map<string, { version: number | null; until: number }>();
// Bumps made by this process: a read that started before one must not cache what it read.
let bumps = 0;

export async function sessionVersion(userId: string, { fresh = false } = {}): Promise<number | null> {
  const now = Date.now();
  const hit = versions.get(userId);
  if (hit && hit.until > now && !fresh) return hit.version;
  const before = bumps;
  const { prisma } = await db();
  const user = await prisma.user.findUnique({ where: { id: userId }, select: { sessionVersion: true } });
  const version = user?.sessionVersion ?? null;
  if (before === bumps) {
    if (versions.size > 10_000) versions.clear();
    versions.set(userId, { version, until: now + VERSION_CACHE_MS });
  }
  return version;
}

/** Whether a session token still stands: its user exists and its version is the current one. */
export async function sessionIsCurrent(token: Pick<JWT, 'sub' | 'sv'>): Promise<boolean> {
  if (!token.sub) return false;
  const sv = typeof token.sv === 'number' ? token.sv : 0;
  let current = await sessionVersion(token.sub);
  // A token newer than the cached version was issued after a bump this process has not seen yet.
  if (current !== null && sv > current) current = await sessionVersion(token.sub, { fresh: true });
  return current !== null && current === sv;
}

/** Signs out every session of the user; returns the new version. */
export async function revokeSessions(userId: string): Promise<number> {
  const { prisma } = await db();
  const user = await prisma.user.update({ where: { id: userId }, data: { sessionVersion: { increment: 1 } }, select: { sessionVersion: true } });
  forgetSessionVersion(userId);
  return user.sessionVersion;
}

export function forgetSessionVersion(userId: string): void {
  bumps++;
  versions.delete(userId);
}

/**
 * Which cookie next-auth keeps the session in: `__Secure-next-auth.session-token` when its base URL
 * is https (NEXTAUTH_URL, else the request's scheme as next-auth's route is shown it, see
 * app/api/auth/[...nextauth]/route.ts), the plain name otherwise.
 */
export function secureSessionCookie(request: Request): boolean {
  const configured = process.env.NEXTAUTH_URL;
  return configured ? configured.startsWith('https://') : requestOrigin(request).scheme === 'https';
}

export function sessionCookieName(secure: boolean): string {
  return secure ? '__Secure-next-auth.session-token' : 'next-auth.session-token';
}

/** The request's session token, decoded, or null. */
export async function readSession(request: Request): Promise<JWT | null> {
  const secureCookie = secureSessionCookie(request);
  // getToken reads `cookies` as NextRequest has them; a plain Request (and tests) have only the header.
  const req = { headers: request.headers, cookies: parseCookies(request.headers.get('cookie')) } as unknown as NextRequest;
  return getToken({ req, secret: sessionSecret(), secureCookie }).catch(() => null);
}

/** A Cookie header as name → value (the first of a repeated name, as browsers send the most specific first). */
export function parseCookies(header: string | null): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const part of header?.split(';') ?? []) {
    const eq = part.indexOf('=');
    if (eq < 1) continue;
    const name = part.slice(0, eq).trim();
    const raw = part
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1');
    try {
      cookies[name] ??= decodeURIComponent(raw);
    } catch {
      cookies[name] ??= raw;
    }
  }
  return cookies;
}

/** A Set-Cookie value that keeps this browser signed in with the token re-issued at `version`. */
export async function reissuedSessionCookie(request: Request, token: JWT, version: number): Promise<string> {
  const secure = secureSessionCookie(request);
  const value = await encode({ token: { ...token, sv: version }, secret: sessionSecret(), maxAge: SESSION_MAX_AGE_S });
  const expires = new Date(Date.now() + SESSION_MAX_AGE_S * 1000).toUTCString();
  return `${sessionCookieName(secure)}=${value}; Path=/; Expires=${expires}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}
