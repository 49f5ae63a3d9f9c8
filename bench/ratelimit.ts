/**
 * What the rate store costs a request: GET /v1/account through its route handler, in this process
 * (no HTTP server, so the store's share is not hidden behind Next.js), at concurrency 10, in
 * production mode (counted in the store) and in sandbox mode (simulated headers, no store), for
 * each store on each database: this process, the rate_windows upsert, Redis. Also the latency of
 * one store hit alone.
 */
import * as account from '../app/v1/account/route';
import { createApiKey, ensureAccount } from '../lib/accounts';
import { rateStore } from '../lib/api/rate-store';
import { useDatabase } from '../lib/db/client';
import { resetEnvForTests } from '../lib/env';
import { freshDatabaseUrl } from '../test/databases';

export interface RateLimitFigures {
  dialect: 'sqlite' | 'postgres';
  store: 'memory' | 'database' | 'redis';
  productionRps: number;
  productionP99Ms: number;
  sandboxRps: number;
  hitUs: number;
}

const CONCURRENCY = 10;

async function load(key: string, sandbox: boolean, ms: number): Promise<{ rps: number; p99Ms: number }> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (sandbox) headers['x-ev-sandbox'] = 'true';
  const latencies: number[] = [];
  const end = performance.now() + ms;
  const start = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (performance.now() < end) {
      const t0 = performance.now();
      const response = await account.GET(new Request('http://localhost/v1/account', { headers }), { params: Promise.resolve({}) });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`GET /v1/account → ${response.status}`);
      latencies.push(performance.now() - t0);
    }
  }));
  latencies.sort((a, b) => a - b);
  return { rps: latencies.length / ((performance.now() - start) / 1000), p99Ms: latencies[Math.floor(latencies.length * 0.99)]! };
}

async function hitLatencyUs(samples: number): Promise<number> {
  const store = await rateStore();
  const t0 = performance.now();
  for (let i = 0; i < samples; i++) await store.hit(`bench:${i % 50}`, 60_000, Date.now());
  return ((performance.now() - t0) * 1000) / samples;
}

export async function runRateLimitBench(ms: number, log: (line: string) => void): Promise<RateLimitFigures[]> {
  const configs = [
    ['sqlite', 'memory'], ['sqlite', 'database'], ['sqlite', 'redis'],
    ['postgres', 'memory'], ['postgres', 'database'], ['postgres', 'redis'],
  ] as const;
  const saved = { ...process.env };
  const figures: RateLimitFigures[] = [];
  try {
    for (const [dialect, store] of configs) {
      const fresh = await freshDatabaseUrl(dialect);
      Object.assign(process.env, {
        DATABASE_URL: fresh.url, EV_RATE_LIMIT_STORE: store, EV_RATE_LIMIT_PER_MINUTE: '100000000',
        EV_REDIS_URL: process.env.EV_REDIS_URL || 'redis://127.0.0.1:6379',
      });
      resetEnvForTests();
      const database = await useDatabase(fresh.url);
      try {
        const { key } = await createApiKey((await ensureAccount(`bench-${dialect}-${store}@example.com`)).id, 'bench');
        await load(key, false, 300); // warm-up: connections, key cache, JIT
        const production = await load(key, false, ms);
        const sandbox = await load(key, true, ms);
        const hitUs = await hitLatencyUs(2_000);
        const f = { dialect, store, productionRps: production.rps, productionP99Ms: production.p99Ms, sandboxRps: sandbox.rps, hitUs };
        figures.push(f);
        log(`  ${dialect}/${store}: production ${f.productionRps.toFixed(0)} req/s (p99 ${f.productionP99Ms.toFixed(2)} ms), sandbox ${f.sandboxRps.toFixed(0)} req/s, one hit ${f.hitUs.toFixed(0)} µs`);
      } finally {
        await database.prisma.$disconnect();
        await fresh.drop();
      }
    }
  } finally {
    for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
    Object.assign(process.env, saved);
    resetEnvForTests();
  }
  return figures;
}
