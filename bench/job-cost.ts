/**
 * Where a sandbox job's time goes (issue 34): one job of `addresses` (default 1,000,000) done by
 * one in-process worker, with this process's CPU time per 1,000 rows for the submission and for the
 * job, and on PostgreSQL the database round trips (every query the `pg` driver sends, Prisma's and
 * pg-boss's, BEGIN and COMMIT included). The third argument picks the database (default postgres).
 * Run it under `node --cpu-prof` to see the stages:
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/job-cost.ts 1000000 1 sqlite
 */
import pg from 'pg';
import { ensureAccount } from '../lib/accounts/users';
import { useDatabase } from '../lib/db/client';
import { submitQueued } from '../lib/jobs/intake/submit';
import { JobWorker } from '../lib/jobs/worker/worker';
import { sandboxVerifier } from '../lib/verifier/sandbox';
import { freshDatabaseUrl } from '../test/databases';

/** Node 24's CPU time of the calling thread alone (its types here predate it). */
const threadCpuUsage = (previous?: NodeJS.CpuUsage): NodeJS.CpuUsage =>
  (process as unknown as { threadCpuUsage(previous?: NodeJS.CpuUsage): NodeJS.CpuUsage }).threadCpuUsage(previous);

let roundTrips = 0;
const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
pg.Client.prototype.query = function counted(this: pg.Client, ...args: unknown[]) {
  roundTrips++;
  return query.apply(this, args);
} as typeof pg.Client.prototype.query;

export async function jobCost(addresses: number, workers = 1, dialect: 'sqlite' | 'postgres' = 'postgres') {
  const fresh = await freshDatabaseUrl(dialect);
  process.env.DATABASE_URL = fresh.url;
  const database = await useDatabase(fresh.url);
  try {
    const account = await ensureAccount(database, 'job-cost@example.com');
    const emails = Array.from({ length: addresses }, (_, i) => `user${i}@sandbox${i % 50}.test`);
    let t = performance.now();
    const submitCpu = process.cpuUsage();
    const { jobId } = await submitQueued(database, { userId: account.id, sandbox: true, emails });
    const submitMs = performance.now() - t;
    const submitUsed = process.cpuUsage(submitCpu);
    const pool = Array.from(
      { length: workers },
      () => new JobWorker(database, { concurrency: 50, leaseMs: 60_000, pollMs: 20, verifierFor: () => sandboxVerifier }),
    );
    const completed = async () => (await database.prisma.job.findUniqueOrThrow({ where: { id: jobId } })).status === 'completed';
    const trips = roundTrips;
    const cpu = process.cpuUsage();
    const mainCpu = threadCpuUsage();
    t = performance.now();
    for (const worker of pool) worker.start();
    let polls = 0;
    while (!(await completed())) {
      polls++;
      await new Promise((r) => setTimeout(r, 50));
    }
    const wallMs = performance.now() - t;
    const used = process.cpuUsage(cpu);
    const mainUsed = threadCpuUsage(mainCpu);
    await Promise.all(pool.map((worker) => worker.stop()));
    const perK = addresses / 1000;
    return {
      dialect,
      addresses,
      workers,
      submitMs: Math.round(submitMs),
      submitCpuUsPer1000: Math.round((submitUsed.user + submitUsed.system) / perK),
      wallMs: Math.round(wallMs),
      // the completion polls above are this script's, not the worker's
      roundTripsPer1000: dialect === 'postgres' ? Number(((roundTrips - trips - polls) / perK).toFixed(1)) : null,
      cpuUsPer1000: Math.round((used.user + used.system) / perK),
      // the job's CPU on this process's main thread alone (the rest: SQLite's checkpoint thread, lib/db/checkpointer.ts)
      mainThreadCpuUsPer1000: Math.round((mainUsed.user + mainUsed.system) / perK),
    };
  } finally {
    await database.prisma.$disconnect();
    await fresh.drop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dialect = process.argv[4] === 'sqlite' ? 'sqlite' : 'postgres';
  console.log(JSON.stringify(await jobCost(Number(process.argv[2] ?? 1_000_000), Number(process.argv[3] ?? 1), dialect), null, 2));
  process.exit(0);
}
