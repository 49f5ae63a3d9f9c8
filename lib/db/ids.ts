import { randomBytes } from 'node:crypto';

/** Whether a path parameter can be one of our ids (anything else is simply not found). */
export function isIdShaped(id: string): boolean {
  return /^[A-Za-z0-9_-]{1,80}$/.test(id);
}

/** Opaque, URL-safe identifiers with a readable prefix (`job_…`, `wh_…`). */
export function newId(prefix: string, bytes = 12): string {
  return `${prefix}_${randomBytes(bytes).toString('base64url')}`;
}
