import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { db } from '../db/client';
import { q } from '../db/sql';
import { env } from '../env';

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

const PRUNE_EVERY_MS = 60_000;

/**
 * The deployment's database: one atomic upsert per hit on `rate_windows`, so every web server on one
 * PostgreSQL counts the same window. Expired rows are deleted at most once a minute per process.
 */
function databaseStore(): RateStore {
  let prunedAt = 0;
  return {
    name: 'database',
    async hit(subject, windowMs, now) {
      const { prisma, dialect } = await db();
      const start = windowStart(now, windowMs);
      const rows = await prisma.$queryRawUnsafe<{ count: number | bigint }[]>(
        q(dialect, `INSERT INTO "rate_windows" ("subject", "window_start", "count", "expires_at") VALUES (?, ?, 1, ?)
          ON CONFLICT ("subject", "window_start") DO UPDATE SET "count" = "rate_windows"."count" + 1 RETURNING "count"`),
        subject, start, start + windowMs,
      );
      if (now - prunedAt > PRUNE_EVERY_MS) {
        prunedAt = now;
        prisma.$executeRawUnsafe(q(dialect, 'DELETE FROM "rate_windows" WHERE "expires_at" < ?'), now)
          .catch((error: unknown) => console.error('[rate] pruning rate_windows failed', error));
      }
      return { count: Number(rows[0]!.count), resetAt: start + windowMs };
    },
  };
}

/**
 * Redis through rate-limiter-flexible (its atomic increment-with-expiry). The key names the window's
 * start, so windows line up with the other stores; the limiter itself never refuses (the caller
 * compares the count with the limit, as for the other stores). While Redis is unreachable the
 * library's insurance limiter counts in this process instead of failing requests.
 */
function redisStore(url: string): RateStore {
  const client = new Redis(url, { maxRetriesPerRequest: 1, connectTimeout: 2_000, lazyConnect: false });
  client.on('error', (error) => console.error('[rate] redis', error.message));
  const limiters = new Map<number, RateLimiterRedis>();
  const limiterFor = (windowMs: number) => {
    let limiter = limiters.get(windowMs);
    if (!limiter) {
      const duration = Math.ceil(windowMs / 1000);
      const points = Number.MAX_SAFE_INTEGER;
      limiter = new RateLimiterRedis({
        storeClient: client, keyPrefix: 'ev-rate', points, duration,
        insuranceLimiter: new RateLimiterMemory({ keyPrefix: 'ev-rate', points, duration }),
      });
      limiters.set(windowMs, limiter);
    }
    return limiter;
  };
  return {
    name: 'redis',
    async hit(subject, windowMs, now) {
      const start = windowStart(now, windowMs);
      let answer: RateLimiterRes;
      try {
        answer = await limiterFor(windowMs).consume(`${subject}:${start}`);
      } catch (error) {
        if (!(error instanceof RateLimiterRes)) throw error;
        answer = error;
      }
      return { count: answer.consumedPoints, resetAt: start + windowMs };
    },
  };
}

const holder = globalThis as unknown as { __evRateStores?: Map<string, RateStore> };

/**
 * The store `EV_RATE_LIMIT_STORE` names; `auto`: Redis when `EV_REDIS_URL` is set, else the database
 * on PostgreSQL (several servers may share it) and this process on SQLite (one machine, and a hit
 * there would wait behind the bulk writer's lock).
 */
export async function rateStore(): Promise<RateStore> {
  const { EV_RATE_LIMIT_STORE: wanted, EV_REDIS_URL: redisUrl } = env();
  let kind: string = wanted;
  if (wanted === 'auto') kind = redisUrl ? 'redis' : (await db()).dialect === 'postgres' ? 'database' : 'memory';
  if (kind === 'redis' && !redisUrl) throw new Error('EV_RATE_LIMIT_STORE=redis needs EV_REDIS_URL');
  const id = kind === 'redis' ? `redis ${redisUrl}` : kind;
  const stores = (holder.__evRateStores ??= new Map());
  let store = stores.get(id);
  if (!store) {
    store = kind === 'redis' ? redisStore(redisUrl) : kind === 'database' ? databaseStore() : memoryStore();
    stores.set(id, store);
  }
  return store;
}
