import { createHash, randomBytes, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { createCapped, type Tx } from './api/limits';
import { db } from './db/client';
import { env } from './env';
import { isIdShaped, newId } from './ids';

const scrypt = promisify(scryptCb) as (password: string, salt: Buffer, keylen: number) => Promise<Buffer>;

export interface Account {
  id: string;
  email: string;
  plan: string;
  credits: number;
}

export class AccountError extends Error {
  constructor(readonly code: 'email_taken' | 'invalid_credentials' | 'weak_password' | 'invalid_email', message: string) {
    super(message);
  }
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, 32);
  return `scrypt$${salt.toString('base64')}$${hash.toString('base64')}`;
}

async function passwordMatches(password: string, stored: string): Promise<boolean> {
  const [scheme, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await scrypt(password, Buffer.from(salt, 'base64'), expected.length);
  return timingSafeEqual(actual, expected);
}

/** The minimum password policy: not blank, not only spaces, at least EV_MIN_PASSWORD_LENGTH characters. */
export function checkPasswordPolicy(password: string): void {
  const min = env().EV_MIN_PASSWORD_LENGTH;
  if (password.trim() === '') throw new AccountError('weak_password', `The password cannot be blank or only spaces; use at least ${min} characters.`);
  if ([...password].length < min) throw new AccountError('weak_password', `The password needs at least ${min} characters.`);
}

export async function createAccount(email: string, password: string): Promise<Account> {
  const address = normalizeEmail(email);
  if (!/^[^\s@]+@[^\s@]+$/.test(address)) throw new AccountError('invalid_email', 'Enter a valid email address.');
  checkPasswordPolicy(password);
  const { prisma } = await db();
  if (await prisma.user.findUnique({ where: { email: address } })) {
    throw new AccountError('email_taken', 'An account with this email already exists.');
  }
  const user = await prisma.user.create({
    data: { id: newId('usr'), email: address, passwordHash: await hashPassword(password) },
  });
  return { id: user.id, email: user.email, plan: user.plan, credits: user.credits };
}

/** For scripts: the account for this email, created with a random password if it does not exist. */
export async function ensureAccount(email: string): Promise<Account> {
  const { prisma } = await db();
  const existing = await prisma.user.findUnique({ where: { email: normalizeEmail(email) } });
  if (existing) return { id: existing.id, email: existing.email, plan: existing.plan, credits: existing.credits };
  return createAccount(email, randomBytes(18).toString('base64url'));
}

// An unknown email is checked against this hash, so it costs the same scrypt as a known one and the
// answer's timing does not tell which emails have accounts.
const UNKNOWN_USER_HASH = `scrypt$${randomBytes(16).toString('base64')}$${Buffer.alloc(32).toString('base64')}`;

export async function authenticatePassword(email: string, password: string): Promise<Account> {
  const { prisma } = await db();
  const user = await prisma.user.findUnique({ where: { email: normalizeEmail(email) } });
  const matches = await passwordMatches(password, user?.passwordHash ?? UNKNOWN_USER_HASH);
  if (!user || !matches) throw new AccountError('invalid_credentials', 'Wrong email or password.');
  return { id: user.id, email: user.email, plan: user.plan, credits: user.credits };
}

/** Sets a new password after checking the current one; bumps the session version (signs out other sessions). */
export async function changePassword(userId: string, current: string, next: string): Promise<number> {
  const { prisma } = await db();
  const user = await prisma.user.findUnique({ where: { id: userId } });
  if (!user || !(await passwordMatches(current, user.passwordHash))) {
    throw new AccountError('invalid_credentials', 'The current password is wrong.');
  }
  checkPasswordPolicy(next);
  const updated = await prisma.user.update({
    where: { id: userId },
    data: { passwordHash: await hashPassword(next), sessionVersion: { increment: 1 } },
  });
  return updated.sessionVersion;
}

export async function getAccount(userId: string): Promise<Account | null> {
  const { prisma } = await db();
  const user = await prisma.user.findUnique({ where: { id: userId } });
  return user && { id: user.id, email: user.email, plan: user.plan, credits: user.credits };
}

// ---- API keys: shown once, stored as SHA-256 (enough for 32 random bytes), listed by prefix.

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export interface ApiKeyInfo {
  id: string;
  name: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

function keyInfo(row: { id: string; name: string; prefix: string; createdAt: Date; lastUsedAt: Date | null; revokedAt: Date | null }): ApiKeyInfo {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    created_at: row.createdAt.toISOString(),
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
    revoked_at: row.revokedAt?.toISOString() ?? null,
  };
}

export async function createApiKey(userId: string, name = ''): Promise<{ key: string; info: ApiKeyInfo }> {
  const key = `ev_live_${randomBytes(32).toString('base64url')}`;
  const cap = { what: 'active keys', limit: env().EV_MAX_ACTIVE_KEYS_PER_ACCOUNT, count: (tx: Tx) => tx.apiKey.count({ where: { userId, revokedAt: null } }) };
  const row = await createCapped(await db(), userId, cap, (tx) => tx.apiKey.create({
    data: { id: newId('key'), userId, name: name.slice(0, 100), prefix: `${key.slice(0, 12)}…`, hash: hashKey(key) },
  }));
  return { key, info: keyInfo(row) };
}

export async function listApiKeys(userId: string): Promise<ApiKeyInfo[]> {
  const { prisma } = await db();
  const rows = await prisma.apiKey.findMany({ where: { userId }, orderBy: { createdAt: 'desc' } });
  return rows.map(keyInfo);
}

export async function revokeApiKey(userId: string, keyId: string): Promise<boolean> {
  if (!isIdShaped(keyId)) return false;
  const { prisma } = await db();
  const result = await prisma.apiKey.updateMany({ where: { id: keyId, userId, revokedAt: null }, data: { revokedAt: new Date() } });
  forgetKeyLookups();
  return result.count === 1;
}

// Looking a key up on every request would dominate a sandbox call; a short cache keeps it off the
// hot path. Revocation in this process clears it; other processes see it within KEY_CACHE_MS.
const KEY_CACHE_MS = 5_000;
const keyCache = new Map<string, { userId: string | null; until: number }>();
const lastUsedWritten = new Map<string, number>();

/** Revocation or account removal by an operator: forget cached key lookups in this process. */
export function forgetKeyLookups(): void {
  keyCache.clear();
}

/** The user id a live key belongs to, or null. The lookup is by hash (no timing leak on the key). */
export async function userIdForKey(key: string): Promise<string | null> {
  const hash = hashKey(key);
  const now = Date.now();
  const hit = keyCache.get(hash);
  if (hit && hit.until > now) return hit.userId;
  const { prisma } = await db();
  const row = await prisma.apiKey.findUnique({ where: { hash } });
  const live = row && !row.revokedAt && timingSafeEqual(Buffer.from(row.hash), Buffer.from(hash)) ? row : null;
  if (keyCache.size > 10_000) keyCache.clear();
  keyCache.set(hash, { userId: live?.userId ?? null, until: now + KEY_CACHE_MS });
  if (live && (lastUsedWritten.get(live.id) ?? 0) < now - 60_000) {
    lastUsedWritten.set(live.id, now);
    await prisma.apiKey.update({ where: { id: live.id }, data: { lastUsedAt: new Date(now) } });
  }
  return live?.userId ?? null;
}
