import { timingSafeEqual } from 'node:crypto';
import type { Database } from '../db/client';
import { cachedKeyLookup, lastUsedDue, rememberKeyLookup } from './key-cache';
import { access, hashKey, type KeyAccess } from './key-rows';
import { accountVersion } from './versions';

/** A live (not revoked) key's access, or null. The lookup is by hash (no timing leak on the key); expiry is the caller's to check. */
export async function keyAccess(database: Database, key: string): Promise<KeyAccess | null> {
  const { prisma } = database;
  const hash = hashKey(key);
  const now = Date.now();
  const since = performance.now();
  const cached = cachedKeyLookup(hash, now);
  if (cached?.key === null) return null;
  if (cached && (await accountVersion(database, cached.key.userId, since)) === cached.version) return cached.key;
  const first = await prisma.apiKey.findUnique({ where: { hash } });
  // the version is read before the row that is kept under it (./versions.ts)
  const version = first ? await accountVersion(database, first.userId) : null;
  const row = first && (await prisma.apiKey.findUnique({ where: { hash } }));
  const live = row && !row.revokedAt && timingSafeEqual(Buffer.from(row.hash), Buffer.from(hash)) ? access(row) : null;
  rememberKeyLookup(hash, live, version, now);
  if (live && lastUsedDue(live.id, now)) {
    await prisma.apiKey.update({ where: { id: live.id }, data: { lastUsedAt: new Date(now) } });
  }
  return live;
}
