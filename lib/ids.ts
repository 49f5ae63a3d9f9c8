import { randomBytes } from 'node:crypto';

/** Opaque, URL-safe identifiers with a readable prefix (`job_…`, `wh_…`). */
export function newId(prefix: string, bytes = 12): string {
  return `${prefix}_${randomBytes(bytes).toString('base64url')}`;
}
