import { Redis } from 'ioredis';
import pg from 'pg';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { db, type Database } from '../db/client';
import { byDialect, q } from '../db/sql';
import { env } from '../config/env';
import { processSlot } from '../config/process-slots';

/** One hit on a fixed window: how many hits the window holds now (this one included), and its end. */
export interface WindowCount {
  count: number;
  resetAt: number;
}

/** Where rate windows are counted. A subject always uses the same window length. */
export interface RateStore {
  readonly name: 'memory' | 'database' | 'redis';
  hit(subject: string, windowMs: number, now: number): Promise<WindowCount>;
}

const windowStart = (now: number, windowMs: number) => Math.floor(now / windowMs) * windowMs;

/** This process only: right for one server (SQLite is one machine), and the Redis store's fallback. */
function memoryStore(): RateStore {
  const windows = new Map<string, { start: number; count: number }>();
  return {
    name: 'memory',
    async hit(subject, windowMs, now) {
      const start = windowStart(now, windowMs);
      let window = windows.get(subject);
      if (!window || window.start !== start) {
        if (windows.size > 50_000) for (const [name, w] of windows) if (w.start + windowMs <= now) windows.delete(name);
        window = { start, count: 0 };
        windows.set(subject, window);
      }
      return { count: ++window.count, resetAt: start + windowMs };
    },
  };
}

/** Adds `n` hits to one window of a shared store and answers the window's new total. */
type AddHits = (subject: string, start: number, windowMs: number, n: number) => Promise<number>;

/**
 * Hits on one window that arrive while its previous write is in flight wait and go as one write of
 * `+n`; the total it answers hands each of them its own place (T-n+1 … T), so every count is still
 * exact. Without this, a process's concurrent requests of one key queue on the same row (or key) one
 * round trip after the other (bench/ratelimit.ts).
 */
function coalesced(name: RateStore['name'], add: AddHits): RateStore {
  const waiting = new Map<
    string,
    { subject: string; start: number; windowMs: number; hits: Array<{ resolve(count: number): void; reject(error: unknown): void }> }
  >();
  const inFlight = new Set<string>();
  const flush = (id: string) => {
    const batch = waiting.get(id);
    if (!batch) return;
    waiting.delete(id);
    inFlight.add(id);
    add(batch.subject, batch.start, batch.windowMs, batch.hits.length)
      .then(
        (total) => {
          for (const [i, hit] of batch.hits.entries()) hit.resolve(total - batch.hits.length + 1 + i);
        },
        (error) => {
          for (const hit of batch.hits) hit.reject(error);
        },
      )
      .finally(() => {
        inFlight.delete(id);
        flush(id);
      });
  };
  return {
    name,
    hit(subject, windowMs, now) {
      const start = windowStart(now, windowMs);
      const id = `${subject}\n${start}`;
      return new Promise<WindowCount>((resolve, reject) => {
        let batch = waiting.get(id);
        if (!batch) waiting.set(id, (batch = { subject, start, windowMs, hits: [] }));
        batch.hits.push({ resolve: (count) => resolve({ count, resetAt: start + windowMs }), reject });
        if (!inFlight.has(id)) flush(id);
      });
    },
  };
}

const PRUNE_EVERY_MS = 60_000;
const UPSERT = `INSERT INTO "rate_windows" ("subject", "window_start", "count", "expires_at") VALUES (?, ?, ?, ?)
  ON CONFLICT ("subject", "window_start") DO UPDATE SET "count" = "rate_windows"."count" + excluded."count" RETURNING "count"`;

/** Deletes the windows that ended before `now`. */
export function pruneRateWindows({ prisma, dialect }: Database, now: number): Promise<number> {
  return prisma.$executeRawUnsafe(q(dialect, 'DELETE FROM "rate_windows" WHERE "expires_at" < ?'), now);
}

/**
 * The deployment's database: an atomic upsert on `rate_windows`, so every web server on one
 * PostgreSQL counts the same window. On PostgreSQL through a small pool of its own: through Prisma
 * the same statement costs several times more and queues behind the request's own queries
 * (bench/ratelimit.ts). Expired rows are deleted at most once a minute per process.
 */
function databaseStore(): RateStore {
  let prunedAt = 0;
  let pool: { url: string; pool: pg.Pool } | undefined;
  const poolFor = (url: string) => {
    if (pool?.url !== url) {
      void pool?.pool.end().catch(() => undefined);
      const created = new pg.Pool({ connectionString: url, max: 4 });
      created.on('error', (error) => console.error('[rate] postgres', error.message));
      pool = { url, pool: created };
    }
    return pool.pool;
  };
  return coalesced('database', async (subject, start, windowMs, n) => {
    const database = await db();
    const now = Date.now();
    if (now - prunedAt > PRUNE_EVERY_MS) {
      prunedAt = now;
      pruneRateWindows(database, now).catch((error: unknown) => console.error('[rate] pruning rate_windows failed', error));
    }
    const values = [subject, start, n, start + windowMs];
    return byDialect(database.dialect, {
      postgres: async () => (await poolFor(database.url).query<{ count: number }>(q('postgres', UPSERT), values)).rows[0]!.count,
      sqlite: async () => Number((await database.prisma.$queryRawUnsafe<{ count: number | bigint }[]>(UPSERT, ...values))[0]!.count),
    })();
  });
}

/**
 * Redis through rate-limiter-flexible (its atomic increment-with-expiry). The key names the window's
 * start, so windows line up with the other stores; the limiter itself never refuses (the caller
 * compares the count with the limit, as for the other stores). While Redis is unreachable the
 * library's insurance limiter counts in this process instead of failing requests.
 */
function redisStore(url: string): RateStore {
  // No offline queue: while Redis is down a hit fails at once and the insurance limiter answers,
  // instead of every request waiting out the reconnection attempts.
  const client = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2_000 });
  let down = false;
  client.on('error', (error) => {
    if (!down) console.error(`[rate] redis unreachable, counting in this process meanwhile: ${error.message}`);
    down = true;
  });
  client.on('ready', () => {
    if (down) console.error('[rate] redis reachable again');
    down = false;
  });
  // The first hits wait for the first connection (or its failure), so a starting server counts in Redis.
  const connected = Promise.race([
    new Promise((resolve) => client.once('ready', resolve)),
    new Promise((resolve) => client.once('error', resolve)),
    new Promise((resolve) => setTimeout(resolve, 2_000).unref()),
  ]);
  const limiters = new Map<number, RateLimiterRedis>();
  const limiterFor = (windowMs: number) => {
    let limiter = limiters.get(windowMs);
    if (!limiter) {
      const duration = Math.ceil(windowMs / 1000);
      const points = Number.MAX_SAFE_INTEGER;
      limiter = new RateLimiterRedis({
        storeClient: client,
        keyPrefix: 'ev-rate',
        points,
        duration,
        insuranceLimiter: new RateLimiterMemory({ keyPrefix: 'ev-rate', points, duration }),
      });
      limiters.set(windowMs, limiter);
    }
    return limiter;
  };
  return coalesced('redis', async (subject, start, windowMs, n) => {
    await connected;
    try {
      return (await limiterFor(windowMs).consume(`${subject}:${start}`, n)).consumedPoints;
    } catch (error) {
      if (error instanceof RateLimiterRes) return error.consumedPoints;
      throw error;
    }
  });
}

const shared = processSlot<Map<string, RateStore>>('rate-stores');

/**
 * The store `EV_RATE_LIMIT_STORE` names; `auto`: Redis when `EV_REDIS_URL` is set, else the database
 * on PostgreSQL (several servers may share it) and this process on SQLite (one machine, and a hit
 * there would wait behind the bulk writer's lock).
 */
export async function rateStore(): Promise<RateStore> {
  const { EV_RATE_LIMIT_STORE: wanted, EV_REDIS_URL: redisUrl } = env();
  let kind: string = wanted;
  if (wanted === 'auto') kind = redisUrl ? 'redis' : byDialect((await db()).dialect, { postgres: 'database', sqlite: 'memory' });
  const id = kind === 'redis' ? `redis ${redisUrl}` : kind;
  const stores = (shared.value ??= new Map());
  let store = stores.get(id);
  if (!store) {
    store = kind === 'redis' ? redisStore(redisUrl) : kind === 'database' ? databaseStore() : memoryStore();
    stores.set(id, store);
  }
  return store;
}
