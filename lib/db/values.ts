import type { Dialect } from './types';

/** A value as the driver wants it: SQLite has no boolean type. */
export function sqlValue(dialect: Dialect, value: unknown): unknown {
  if (typeof value === 'boolean' && dialect === 'sqlite') return value ? 1 : 0;
  // PostgreSQL text cannot hold NUL; hostile input is stored with U+FFFD in its place.
  if (typeof value === 'string' && value.includes('\u0000')) return value.replaceAll('\u0000', '\uFFFD');
  return value === undefined ? null : value;
}

/**
 * A time (epoch ms) as a timestamp column is written by column: SQLite's hold epoch milliseconds
 * (its adapter's `unixepoch-ms`, lib/db/client.ts); PostgreSQL's `TIMESTAMP(3)`, without a time
 * zone, holds UTC as Prisma's adapter writes it: the ISO text, whose `Z` that type ignores.
 */
export function timestampValue(dialect: Dialect, ms: number): number | string {
  return dialect === 'postgres' ? new Date(ms).toISOString() : ms;
}
