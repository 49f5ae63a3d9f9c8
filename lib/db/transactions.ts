import type { Db, Dialect } from './types';

type Runner = Pick<Db, '$executeRawUnsafe'>;

/**
 * Serialises one organisation's membership changes inside the caller's transaction: PostgreSQL
 * takes a transaction-scoped advisory lock on `members:<org>`; SQLite's write lock is taken by a
 * no-op update of the organisation's row.
 */
export async function lockOrganisation(tx: Runner, dialect: Dialect, orgId: string): Promise<void> {
  if (dialect === 'postgres') await tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, `members:${orgId}`);
  else await tx.$executeRawUnsafe('UPDATE "users" SET "plan" = "plan" WHERE "id" = ?', orgId);
}

/**
 * Options for a long read-only transaction that must see one snapshot: PostgreSQL's repeatable
 * read; SQLite's read transaction is one already (its client's type knows only Serializable).
 */
export function snapshotOptions(dialect: Dialect, limits: { timeout: number; maxWait: number }): { timeout: number } {
  return { ...limits, ...(dialect === 'postgres' ? { isolationLevel: 'RepeatableRead' } : {}) } as { timeout: number };
}
