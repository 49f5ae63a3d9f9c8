import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Database } from '../db/client';
import { createCapped, type Tx } from '../db/capped';
import { env } from '../config/env';
import { isIdShaped, newId } from '../db/ids';
import { cachedKeyLookup, forgetKeyLookups, lastUsedDue, rememberKeyLookup } from './key-cache';

// API keys: shown once, stored as SHA-256 (enough for 32 random bytes), listed by prefix.

function hashKey(key: string): string {
  return hash('sha256', key, 'hex'); // one-shot: no Hash object per request
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

export async function createApiKey(database: Database, userId: string, name = ''): Promise<{ key: string; info: ApiKeyInfo }> {
  const key = `ev_live_${randomBytes(32).toString('base64url')}`;
  const cap = { what: 'active keys', limit: env().EV_MAX_ACTIVE_KEYS_PER_ACCOUNT, count: (tx: Tx) => tx.apiKey.count({ where: { userId, revokedAt: null } }) };
  const row = await createCapped(database, userId, cap, (tx) => tx.apiKey.create({
    data: { id: newId('key'), userId, name: name.slice(0, 100), prefix: `${key.slice(0, 12)}…`, hash: hashKey(key) },
  }));
  return { key, info: keyInfo(row) };
}

export async function listApiKeys({ prisma }: Database, userId: string): Promise<ApiKeyInfo[]> {
  const rows = await prisma.apiKey.findMany({ where: { userId }, orderBy: { createdAt: 'desc' } });
  return rows.map(keyInfo);
}

export async function revokeApiKey({ prisma }: Database, userId: string, keyId: string): Promise<boolean> {
  if (!isIdShaped(keyId)) return false;
  const result = await prisma.apiKey.updateMany({ where: { id: keyId, userId, revokedAt: null }, data: { revokedAt: new Date() } });
  forgetKeyLookups();
  return result.count === 1;
}

/** The user id a live key belongs to, or null. The lookup is by hash (no timing leak on the key). */
export async function userIdForKey({ prisma }: Database, key: string): Promise<string | null> {
  const hash = hashKey(key);
  const now = Date.now();
  const cached = cachedKeyLookup(hash, now);
  if (cached !== undefined) return cached;
  const row = await prisma.apiKey.findUnique({ where: { hash } });
  const live = row && !row.revokedAt && timingSafeEqual(Buffer.from(row.hash), Buffer.from(hash)) ? row : null;
  rememberKeyLookup(hash, live?.userId ?? null, now);
  if (live && lastUsedDue(live.id, now)) {
    await prisma.apiKey.update({ where: { id: live.id }, data: { lastUsedAt: new Date(now) } });
  }
  return live?.userId ?? null;
}
