/**
 * What the rate store costs a request: GET /v1/account through its route handler, in this process
 * (no HTTP server, so the store's share is not hidden behind Next.js), at concurrency 10, in
 * production mode (counted in the store) and in sandbox mode (simulated headers, no store), for
 * each store on each database: this process, the rate_windows upsert, Redis. Also the latency of
 * one store hit alone.
 */
import * as account from '../app/v1/account/route';
import { ensureAccount } from '../lib/accounts/users';
import { createApiKey } from '../lib/accounts/keys';
import { rateStore } from '../lib/api/rate-store';
import { useDatabase } from '../lib/db/client';
import { freshDatabaseUrl } from '../test/databases';

export interface RateLimitFigures {
  dialect: 'sqlite' | 'postgres';
  /** `none`: sandbox requests, which no store counts */
  store: 'memory' | 'database' | 'redis' | 'none';
  rps: number;
  p99Ms: number;
  hitUs: number;
}

const STORES = ['none', 'memory', 'database', 'redis'] as const;
const SLICE_MS = 500;

const CONCURRENCY = 10;

async function load(key: string, sandbox: boolean, ms: number): Promise<number[]> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (sandbox) headers['x-ev-sandbox'] = 'true';
  const latencies: number[] = [];
  const end = performance.now() + ms;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < end) {
        const t0 = performance.now();
        const response = await account.GET(new Request('http://localhost/v1/account', { headers }), { params: Promise.resolve({}) });
        await response.arrayBuffer();
        if (response.status !== 200) throw new Error(`GET /v1/account → ${response.status}`);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  return latencies;
}

function useStore(store: (typeof STORES)[number]) {
  process.env.EV_RATE_LIMIT_STORE = store === 'none' ? 'memory' : store;
}

async function hitLatencyUs(samples: number): Promise<number> {
  const store = await rateStore();
  const t0 = performance.now();
  for (let i = 0; i < samples; i++) await store.hit(`bench:${i % 50}`, 60_000, Date.now());
  return ((performance.now() - t0) * 1000) / samples;
}

/**
 * Per database, the stores take turns in short slices on the same database and account, so load
 * from elsewhere on the machine falls on all of them alike.
 */
export async function runRateLimitBench(ms: number, log: (line: string) => void): Promise<RateLimitFigures[]> {
  const saved = { ...process.env };
  const figures: RateLimitFigures[] = [];
  try {
    for (const dialect of ['sqlite', 'postgres'] as const) {
      const fresh = await freshDatabaseUrl(dialect);
      Object.assign(process.env, {
        DATABASE_URL: fresh.url,
        EV_RATE_LIMIT_PER_MINUTE: '100000000',
        EV_REDIS_URL: process.env.EV_REDIS_URL || 'redis://127.0.0.1:6379',
      });
      const database = await useDatabase(fresh.url);
      try {
        const { key } = await createApiKey(database, (await ensureAccount(database, `bench-${dialect}@example.com`)).id, 'bench');
        const latencies = new Map<string, number[]>(STORES.map((store) => [store, []]));
        for (const store of STORES) {
          useStore(store);
          await load(key, store === 'none', 200); // warm-up: connections, key cache, JIT
        }
        for (let t = 0; t < ms; t += SLICE_MS) {
          for (const store of STORES) {
            useStore(store);
            latencies.get(store)!.push(...(await load(key, store === 'none', SLICE_MS)));
          }
        }
        for (const store of STORES) {
          useStore(store);
          const all = latencies.get(store)!.sort((a, b) => a - b);
          const f = {
            dialect,
            store,
            rps: all.length / ((Math.ceil(ms / SLICE_MS) * SLICE_MS) / 1000),
            p99Ms: all[Math.floor(all.length * 0.99)]!,
            hitUs: store === 'none' ? 0 : await hitLatencyUs(2_000),
          };
          figures.push(f);
          log(
            `  ${dialect}/${store}: ${f.rps.toFixed(0)} req/s, p99 ${f.p99Ms.toFixed(2)} ms${store === 'none' ? ' (sandbox, not counted)' : `, one hit alone ${f.hitUs.toFixed(0)} µs`}`,
          );
        }
      } finally {
        await database.prisma.$disconnect();
        await fresh.drop();
      }
    }
  } finally {
    for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
    Object.assign(process.env, saved);
  }
  return figures;
}
