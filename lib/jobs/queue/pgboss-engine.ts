import { type Clock, PgBoss } from 'pg-boss';
import { type Database, onClose } from '../../db/client';

/**
 * pg-boss itself (https://github.com/timgit/pg-boss, docs/dependencies.md), started once per
 * database: the queues' names, what a delivery carries, and the engine the PostgreSQL queue
 * (pgboss.ts) and its claims (pgboss-claim.ts) run on.
 */

export const SANDBOX = 'ev-chunks-sandbox';
export const PRODUCTION = 'ev-chunks-production';
export const egressQueue = (egress: string) => `ev-chunks-egress-${egress.replace(/[^\w.-]/g, '_')}`;
export const modeQueue = (sandbox: boolean) => (sandbox ? SANDBOX : PRODUCTION);

/** a claim or hand-back is a few statements; under load it may wait for a connection of the pool longer than Prisma's default 2 s */
export const TX = { maxWait: 15_000, timeout: 15_000 };

export interface Delivery {
  job: string;
  no: number;
  user: string;
  sandbox: boolean;
  /** the priority it was given, kept when it is put back */
  p: number;
}

export interface Engine {
  boss: PgBoss;
  ensure(queue: string): Promise<void>;
}

const engines = new WeakMap<Database, Promise<Engine>>();

export function engine(database: Database): Promise<Engine> {
  let started = engines.get(database);
  if (!started) {
    started = startEngine(database);
    engines.set(database, started);
    started.catch(() => engines.delete(database));
  }
  return started;
}

/**
 * Starts pg-boss on the database (its own schema, `pgboss`, created or migrated by `start()`) with
 * a small pool of its own, for its bookkeeping and the claims; what must commit with our own rows
 * (enqueue, hand-back, completion) runs in the caller's transaction (`fromPrisma`: Prisma's, or a held
 * connection seen as one, lib/db/pg-connection.ts `rawClient`). No supervisor or scheduler: no delivery stays `active` past
 * the transaction that fetched it. Stopped when the database is closed.
 */
async function startEngine(database: Database): Promise<Engine> {
  // pg-boss's timers and idle connections do not hold the process open (its pool takes pg.Pool's
  // `allowExitOnIdle` from these options): a worker or a server lives for reasons of its own, and a
  // script or test that queued a job may end
  const options = {
    connectionString: database.url,
    max: 4,
    supervise: false,
    schedule: false,
    registerInstance: false,
    clock: UNREF_CLOCK,
    allowExitOnIdle: true,
  };
  const boss = new PgBoss(options);
  boss.on('error', (error) => console.error('[pg-boss]', error instanceof Error ? error.message : error));
  await boss.start();
  const queues = new Map<string, Promise<void>>();
  const ensure = (queue: string) => {
    let created = queues.get(queue);
    if (!created) {
      created = boss.createQueue(queue).catch((error: unknown) => {
        queues.delete(queue);
        throw error;
      });
      queues.set(queue, created);
    }
    return created;
  };
  await Promise.all([ensure(SANDBOX), ensure(PRODUCTION)]);
  onClose(database, async () => {
    engines.delete(database);
    await boss.stop({ graceful: false, close: true }).catch(() => {});
  });
  return { boss, ensure };
}

const UNREF_CLOCK: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
  setInterval: (fn, ms) => setInterval(fn, ms).unref(),
  clearInterval: (handle) => clearInterval(handle as NodeJS.Timeout),
};

export const parse = (data: unknown): Delivery => (typeof data === 'string' ? JSON.parse(data) : data) as Delivery;
