import type { Dialect } from './types';

/** A value as the driver wants it: SQLite has no boolean type. */
export function sqlValue(dialect: Dialect, value: unknown): unknown {
  if (typeof value === 'boolean' && dialect === 'sqlite') return value ? 1 : 0;
  // PostgreSQL text cannot hold NUL; hostile input is stored with U+FFFD in its place.
  if (typeof value === 'string' && value.includes('\u0000')) return value.replaceAll('\u0000', '\uFFFD');
  return value === undefined ? null : value;
}
