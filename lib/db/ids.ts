import { randomBytes } from 'node:crypto';

/** Whether a path parameter can be one of our ids (anything else is simply not found). */
export function isIdShaped(id: string): boolean {
  return /^[A-Za-z0-9_-]{1,80}$/.test(id);
}

// A request asks for a few ids, and one small randomBytes() call costs about as much as a large
// one: the bytes come from a pool filled 4 KB at a time (as node's randomUUID does), each byte used once.
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let used = 0;

function poolBytes(bytes: number): Buffer {
  if (bytes > POOL_BYTES) return randomBytes(bytes);
  if (used + bytes > pool.length) {
    pool = randomBytes(POOL_BYTES);
    used = 0;
  }
  const out = pool.subarray(used, used + bytes);
  used += bytes;
  return out;
}

/** Opaque, URL-safe identifiers with a readable prefix (`job_…`, `wh_…`). */
export function newId(prefix: string, bytes = 12): string {
  return `${prefix}_${poolBytes(bytes).toString('base64url')}`;
}
