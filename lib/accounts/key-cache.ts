import type { KeyAccess } from './keys';

// Looking a key up on every request would dominate a sandbox call; a short cache keeps it off the
// hot path. Revocation and edits in this process clear it; other processes see it within KEY_CACHE_MS.
export const KEY_CACHE_MS = 5_000;
const LAST_USED_EVERY_MS = 60_000;
const keyCache = new Map<string, { key: KeyAccess | null; until: number }>();
const lastUsedWritten = new Map<string, number>();

/** Revocation or account removal by an operator: forget cached key lookups in this process. */
export function forgetKeyLookups(): void {
  keyCache.clear();
}

/** The cached answer for a key hash: the live key, null (no live key), or undefined (ask the database). */
export function cachedKeyLookup(hash: string, now: number): KeyAccess | null | undefined {
  const hit = keyCache.get(hash);
  return hit && hit.until > now ? hit.key : undefined;
}

export function rememberKeyLookup(hash: string, key: KeyAccess | null, now: number): void {
  if (keyCache.size > 10_000) keyCache.clear();
  keyCache.set(hash, { key, until: now + KEY_CACHE_MS });
}

/** Whether a key's `last_used_at` is due a write: at most once a minute per key and process. */
export function lastUsedDue(keyId: string, now: number): boolean {
  if ((lastUsedWritten.get(keyId) ?? 0) >= now - LAST_USED_EVERY_MS) return false;
  lastUsedWritten.set(keyId, now);
  return true;
}
