/**
 * A plan is domain logic written once, as a generator that yields the named queries it needs; an
 * executor per engine answers them (lib/db/plan-executors.ts). SQLite's direct connection answers
 * synchronously inside one IMMEDIATE transaction, Prisma's transaction asynchronously: the same
 * generator runs under both, so the logic is not written twice and the domain never branches on
 * the database. No engine import here.
 */
export interface Queries {
  /** A statement written with `?` (lib/db/sql.ts `q`): the number of rows it changed. */
  execute(sql: string, params: unknown[]): number;
  /** A SELECT (or a statement with RETURNING) written with `?`: its rows. */
  query(sql: string, params: unknown[]): Record<string, unknown>[];
  /** A multi-row INSERT. */
  insert(table: string, columns: readonly string[], rows: unknown[][]): void;
  /** The day's usage row, created at 0 if missing: its `used` (lib/accounts/quota.ts). */
  openDay(userId: string, day: string): number;
  /** Takes `credits` from the balance only if it holds them: whether it did. */
  takeCredits(userId: string, credits: number): boolean;
  /** The balance. */
  creditsOf(userId: string): number;
  /** Adds `free` to the day's usage read as `seen`: false when another reservation moved it since. */
  takeFree(userId: string, day: string, free: number, seen: number): boolean;
}

type Name = keyof Queries;
export type Ask = { [K in Name]: { name: K; args: Parameters<Queries[K]> } }[Name];
export type Plan<R> = Generator<Ask, R, unknown>;
export type AsyncQueries = { [K in Name]: (...args: Parameters<Queries[K]>) => Promise<ReturnType<Queries[K]>> };

/** Inside a plan: `const used = yield* ask('openDay', userId, day)`. */
export function* ask<K extends Name>(name: K, ...args: Parameters<Queries[K]>): Generator<Ask, ReturnType<Queries[K]>, unknown> {
  return (yield { name, args } as Ask) as ReturnType<Queries[K]>;
}

const call = <Q extends Queries | AsyncQueries>(queries: Q, step: Ask) => (queries[step.name] as (...args: unknown[]) => unknown)(...step.args);

/** Runs a plan against synchronous queries. */
export function runPlan<R>(plan: Plan<R>, queries: Queries): R {
  let step = plan.next();
  while (!step.done) step = plan.next(call(queries, step.value));
  return step.value;
}

/** Runs a plan against asynchronous queries, one at a time in order. */
export async function runPlanAsync<R>(plan: Plan<R>, queries: AsyncQueries): Promise<R> {
  let step = plan.next();
  while (!step.done) step = plan.next(await call(queries, step.value));
  return step.value;
}
