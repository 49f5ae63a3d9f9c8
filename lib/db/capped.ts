import { AppError } from '../errors/app-error';
import { byDialect } from './sql';
import type { Database } from './types';

export type Tx = Parameters<Parameters<Database['prisma']['$transaction']>[0]>[0];

/**
 * Creates a row (or `adding` rows) unless the account would then hold more than `limit` of its kind (409 `limit_reached`). Counting
 * and creating run in one transaction under a per-account lock (an advisory lock on PostgreSQL; on
 * SQLite the writer's lock), so concurrent requests cannot pass the cap together.
 */
export async function createCapped<T>(
  { prisma, dialect }: Database,
  userId: string,
  cap: { what: string; limit: number; count(tx: Tx): Promise<number> /** rows this call creates (default 1) */; adding?: number },
  create: (tx: Tx) => Promise<T>,
): Promise<T> {
  return prisma.$transaction(async (tx) => {
    await byDialect(dialect, {
      postgres: () => tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, `cap:${cap.what}:${userId}`),
      // takes the write lock now, not at the INSERT
      sqlite: () => tx.$executeRawUnsafe('UPDATE "users" SET "plan" = "plan" WHERE "id" = ?', userId),
    })();
    if ((await cap.count(tx)) + (cap.adding ?? 1) > cap.limit) {
      throw new AppError('limit_reached', `This account already has the most ${cap.what} allowed (${cap.limit}). Delete one first.`, { limit: cap.limit });
    }
    return create(tx);
  });
}
