import type BetterSqlite3 from 'better-sqlite3';
import { type AsyncQueries, type Plan, type Queries, runPlan, runPlanAsync } from './plan';
import { insertRows, q, sqliteInsert, sqlValue } from './sql';
import type { Database, Db, Dialect } from './types';

/** The direct SQLite connection's answers (synchronous: a plan runs inside one of its transactions). */
export function sqliteQueries(bulk: BetterSqlite3.Database): Queries {
  const args = (params: unknown[]) => params.map((value) => sqlValue('sqlite', value));
  return {
    execute: (sql, params) => bulk.prepare(sql).run(...args(params)).changes,
    query: (sql, params) => bulk.prepare(sql).all(...args(params)) as Record<string, unknown>[],
    insert: (table, columns, rows) => sqliteInsert(bulk, table, columns, rows),
    openDay(userId, day) {
      bulk.prepare('INSERT INTO usage_days (user_id, day, used) VALUES (?, ?, 0) ON CONFLICT DO NOTHING').run(userId, day);
      return (bulk.prepare('SELECT used FROM usage_days WHERE user_id = ? AND day = ?').get(userId, day) as { used: number }).used;
    },
    takeCredits: (userId, credits) =>
      bulk.prepare('UPDATE users SET credits = credits - ? WHERE id = ? AND credits >= ?').run(credits, userId, credits).changes === 1,
    creditsOf: (userId) => (bulk.prepare('SELECT credits FROM users WHERE id = ?').get(userId) as { credits: number } | undefined)?.credits ?? 0,
    // under the write lock nothing moved since the read (runWritePlan below)
    takeFree: (userId, day, free) => bulk.prepare('UPDATE usage_days SET used = used + ? WHERE user_id = ? AND day = ?').run(free, userId, day).changes === 1,
  };
}

export type PlanTx = Pick<Db, '$executeRawUnsafe' | '$queryRawUnsafe' | 'user' | 'usageDay'>;

/** Prisma's answers, inside the caller's transaction, on either database. */
export function prismaQueries(tx: PlanTx, dialect: Dialect): AsyncQueries {
  return {
    execute: (sql, params) => tx.$executeRawUnsafe(q(dialect, sql), ...params),
    query: (sql, params) => tx.$queryRawUnsafe<Record<string, unknown>[]>(q(dialect, sql), ...params),
    insert: (table, columns, rows) => insertRows(tx, dialect, table, columns, rows),
    openDay: async (userId, day) => (await tx.usageDay.upsert({ where: { userId_day: { userId, day } }, create: { userId, day, used: 0 }, update: {} })).used,
    takeCredits: async (userId, credits) =>
      (await tx.user.updateMany({ where: { id: userId, credits: { gte: credits } }, data: { credits: { decrement: credits } } })).count === 1,
    creditsOf: async (userId) => (await tx.user.findUnique({ where: { id: userId } }))?.credits ?? 0,
    // conditional on the count read, so two reservations cannot both take the last free ones
    takeFree: async (userId, day, free, seen) =>
      (await tx.usageDay.updateMany({ where: { userId, day, used: seen }, data: { used: { increment: free } } })).count === 1,
  };
}

/** A plan in the caller's Prisma transaction. */
export function runPlanIn<R>(tx: PlanTx, dialect: Dialect, plan: Plan<R>): Promise<R> {
  return runPlanAsync(plan, prismaQueries(tx, dialect));
}

/** A plan inside the caller's synchronous transaction on SQLite's direct connection. */
export function runPlanOn<R>(bulk: BetterSqlite3.Database, plan: Plan<R>): R {
  return runPlan(plan, sqliteQueries(bulk));
}

/**
 * A plan in a write transaction of its own. SQLite: one synchronous IMMEDIATE transaction on the
 * direct connection under the write lock (taken first, so nothing moves between a read and its
 * update, and none of Prisma's per-statement cost on the hot path). PostgreSQL: Prisma's
 * interactive transaction. `plan` is called once per run.
 */
export function runWritePlan<R>(database: Database, plan: () => Plan<R>): Promise<R> {
  const { bulk, writeLock } = database;
  if (bulk && writeLock) return writeLock.run(() => bulk.transaction(() => runPlanOn(bulk, plan())).immediate());
  return database.prisma.$transaction((tx) => runPlanIn(tx, database.dialect, plan()));
}
