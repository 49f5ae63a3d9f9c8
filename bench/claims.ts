/**
 * The queue's own cost on PostgreSQL (issue 21): claim latency and throughput with 1 and 4
 * claimers, and the wall time of a sandbox job (the sandbox engine answers at once, so the time is
 * the queue's, the ledger's and the saves') by 1 and 4 in-process workers.
 * Run alone: npx tsx bench/claims.ts [addresses, default 1000000] [claims, default 2000]
 */
import { ensureAccount } from '../lib/accounts/users';
import { useDatabase, type Database } from '../lib/db/client';
import { submitQueued } from '../lib/jobs/intake/submit';
import { completeChunkAndFinish } from '../lib/jobs/worker/lifecycle';
import { claimChunk } from '../lib/jobs/queue';
import { JobWorker } from '../lib/jobs/worker/worker';
import { sandboxVerifier } from '../lib/verifier/sandbox';
import { freshDatabaseUrl } from '../test/databases';

export interface ClaimsReport {
  claims: { claimers: number; count: number; p50Ms: number; p95Ms: number; perSecond: number }[];
  /** `otherJobMs`: fairness, how long a second account's 50-address job took from its submission, 3 s into the big job */
  job: { workers: number; addresses: number; submitMs: number; wallMs: number; perSecond: number; otherJobMs: number }[];
}

async function withDatabase<T>(chunkSize: number, work: (database: Database) => Promise<T>): Promise<T> {
  const fresh = await freshDatabaseUrl('postgres');
  process.env.DATABASE_URL = fresh.url;
  process.env.EV_CHUNK_SIZE = String(chunkSize);
  const database = await useDatabase(fresh.url);
  try {
    return await work(database);
  } finally {
    await database.prisma.$disconnect();
    await fresh.drop();
  }
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

/** `claimers` loops each claiming a chunk and completing it at once, until the job's `count` one-address chunks are gone. */
async function claimLatency(claimers: number, count: number) {
  return withDatabase(1, async (database) => {
    const account = await ensureAccount(database, 'claims@example.com');
    await submitQueued(database, { userId: account.id, sandbox: true, emails: Array.from({ length: count }, (_, i) => `user${i}@claims.test`) });
    const latencies: number[] = [];
    const started = performance.now();
    await Promise.all(
      Array.from({ length: claimers }, async (_, w) => {
        for (;;) {
          const t = performance.now();
          const chunk = await claimChunk(database, `w${w}`, 60_000);
          latencies.push(performance.now() - t);
          if (!chunk) return;
          await completeChunkAndFinish(database, chunk);
        }
      }),
    );
    const ms = performance.now() - started;
    latencies.sort((a, b) => a - b);
    return {
      claimers,
      count,
      p50Ms: Number(quantile(latencies, 0.5).toFixed(2)),
      p95Ms: Number(quantile(latencies, 0.95).toFixed(2)),
      perSecond: Math.round(count / (ms / 1000)),
    };
  });
}

/**
 * A sandbox job of `addresses` in chunks of 2,000, done by `workers` in-process workers; 3 s in, a
 * second account submits a 50-address job, which must not wait for the big one (fairness).
 */
async function sandboxJob(workers: number, addresses: number) {
  return withDatabase(2000, async (database) => {
    const account = await ensureAccount(database, 'sandbox-job@example.com');
    const emails = Array.from({ length: addresses }, (_, i) => `user${i}@sandbox${i % 50}.test`);
    let t = performance.now();
    const { jobId } = await submitQueued(database, { userId: account.id, sandbox: true, emails });
    const submitMs = performance.now() - t;
    const pool = Array.from(
      { length: workers },
      () => new JobWorker(database, { concurrency: 50, leaseMs: 60_000, pollMs: 20, verifierFor: () => sandboxVerifier }),
    );
    const other = await ensureAccount(database, 'small-job@example.com');
    const completed = async (id: string) => (await database.prisma.job.findUniqueOrThrow({ where: { id } })).status === 'completed';
    t = performance.now();
    for (const worker of pool) worker.start();
    const small = (async () => {
      await new Promise((r) => setTimeout(r, 3_000));
      const since = performance.now();
      const { jobId: id } = await submitQueued(database, {
        userId: other.id,
        sandbox: true,
        emails: Array.from({ length: 50 }, (_, i) => `user${i}@small.test`),
      });
      while (!(await completed(id))) await new Promise((r) => setTimeout(r, 20));
      return performance.now() - since;
    })();
    while (!(await completed(jobId))) await new Promise((r) => setTimeout(r, 20));
    const wallMs = performance.now() - t;
    const otherJobMs = await small;
    await Promise.all(pool.map((worker) => worker.stop()));
    return {
      workers,
      addresses,
      submitMs: Math.round(submitMs),
      wallMs: Math.round(wallMs),
      perSecond: Math.round(addresses / (wallMs / 1000)),
      otherJobMs: Math.round(otherJobMs),
    };
  });
}

export async function runClaimsBench(addresses = 1_000_000, claims = 2_000): Promise<ClaimsReport> {
  const report: ClaimsReport = { claims: [], job: [] };
  for (const claimers of [1, 4]) report.claims.push(await claimLatency(claimers, claims));
  if (addresses > 0) for (const workers of [1, 4]) report.job.push(await sandboxJob(workers, addresses));
  return report;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const report = await runClaimsBench(Number(process.argv[2] ?? 1_000_000), Number(process.argv[3] ?? 2_000));
  console.log(JSON.stringify(report, null, 2));
  process.exit(0);
}
