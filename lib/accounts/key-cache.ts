import type { KeyAccess } from './key-rows';

// Looking a key up on every request would dominate a sandbox call, so a live key is kept per
// process under its account's configuration version (./versions.ts) and used while that version
// holds: an edit or a revocation in any process is seen by the next request. A hash with no live
// key (a wrong or revoked key) is remembered for NO_KEY_CACHE_MS.
const NO_KEY_CACHE_MS = 5_000;
const LAST_USED_EVERY_MS = 60_000;
type Entry = { key: KeyAccess; version: number } | { key: null; until: number };
const keyCache = new Map<string, Entry>();
const lastUsedWritten = new Map<string, number>();

/** Account removal by an operator (or a test): forget cached key lookups in this process. */
export function forgetKeyLookups(): void {
  keyCache.clear();
}

/**
 * The cached answer for a key hash: a live key with the account version it was read under, null
 * (no live key, recently), or undefined (ask the database).
 */
export function cachedKeyLookup(hash: string, now: number): Entry | undefined {
  const hit = keyCache.get(hash);
  if (!hit) return undefined;
  if (hit.key === null && hit.until <= now) return undefined;
  return hit;
}

export function rememberKeyLookup(hash: string, key: KeyAccess | null, version: number | null, now: number): void {
  if (keyCache.size > 10_000) keyCache.clear();
  keyCache.set(hash, key && version !== null ? { key, version } : { key: null, until: now + NO_KEY_CACHE_MS });
}

/** Whether a key's `last_used_at` is due a write: at most once a minute per key and process. */
export function lastUsedDue(keyId: string, now: number): boolean {
  if ((lastUsedWritten.get(keyId) ?? 0) >= now - LAST_USED_EVERY_MS) return false;
  lastUsedWritten.set(keyId, now);
  return true;
}
