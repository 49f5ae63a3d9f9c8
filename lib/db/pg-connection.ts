import type pg from 'pg';
import type { Db } from './client';

/**
 * One connection of the pool Prisma's adapter uses (Database.pool), held for `work`: what runs its
 * statements on `pg` directly, without Prisma encoding every parameter as JSON and decoding it again
 * (a chunk's save, lib/db/insert-while-held.ts; a queued job's write, lib/db/staged-write.ts).
 * The server may end the connection between two statements (a restart): unheard, the client's
 * 'error' event would end the process; heard, the next statement fails and the caller's work with it.
 * A connection whose work failed may be in any state: the pool closes it rather than lend it again.
 */
export async function heldConnection<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const lost = (error: Error) => (broken ??= error);
  client.on('error', lost);
  try {
    return await work(client);
  } catch (error) {
    broken ??= error as Error;
    throw error;
  } finally {
    client.removeListener('error', lost);
    client.release(broken);
  }
}

/** `work` between BEGIN and COMMIT on `client`; ROLLBACK when it throws. */
export async function inTransaction<T>(client: pg.PoolClient, work: () => Promise<T>): Promise<T> {
  await client.query('BEGIN');
  try {
    const result = await work();
    await client.query('COMMIT');
    return result;
  } catch (error) {
    // a failed ROLLBACK leaves the connection broken: heldConnection closes it, and the server rolls back
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/**
 * A held connection seen as the part of Prisma's transaction client that raw SQL uses
 * (`$executeRawUnsafe`, `$queryRawUnsafe`, `$n` placeholders), for code written against it: the
 * queue's enqueue (lib/jobs/queue/pgboss.ts, which hands it to pg-boss through `fromPrisma`), `insertRows`.
 * Values go to `pg` as they are; rows come back as `pg` reads them (a COUNT as text, not a bigint).
 */
export function rawClient(client: pg.PoolClient): Pick<Db, '$executeRawUnsafe' | '$queryRawUnsafe'> {
  const raw = {
    $executeRawUnsafe: async (sql: string, ...values: unknown[]) => (await client.query(sql, values)).rowCount ?? 0,
    $queryRawUnsafe: async (sql: string, ...values: unknown[]) => (await client.query(sql, values)).rows,
  };
  return raw as unknown as Pick<Db, '$executeRawUnsafe' | '$queryRawUnsafe'>;
}
