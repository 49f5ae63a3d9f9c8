/**
 * The worker's own cost per address, with a verifier that answers at once (the sandbox engine): a
 * sandbox job and a production one (production accounting, claims checked before each probe), on
 * SQLite and PostgreSQL, one in-process JobWorker. Run alone: npx tsx bench/worker-throughput.ts [addresses]
 */
import { ensureAccount } from '../lib/accounts/users';
import { grantCredits } from '../lib/accounts/quota';
import { useDatabase } from '../lib/db/client';
import { submitQueued } from '../lib/jobs/intake/submit';
import { JobWorker } from '../lib/jobs/worker/worker';
import { sandboxVerifier } from '../lib/verifier/sandbox';
import { freshDatabaseUrl } from '../test/databases';

export async function workerThroughput(addresses: number) {
  const figures: { dialect: string; mode: string; perSecond: number }[] = [];
  for (const dialect of ['sqlite', 'postgres'] as const) {
    for (const sandbox of [true, false]) {
      const fresh = await freshDatabaseUrl(dialect);
      process.env.DATABASE_URL = fresh.url;
      process.env.EV_CHUNK_SIZE = '2000';
      const database = await useDatabase(fresh.url);
      try {
        const account = await ensureAccount(database, 'throughput@example.com');
        await grantCredits(database, account.id, addresses);
        const emails = Array.from({ length: addresses }, (_, i) => `user${i}@throughput${i % 50}.test`);
        const { jobId } = await submitQueued(database, { userId: account.id, sandbox, emails });
        const worker = new JobWorker(database, { concurrency: 50, leaseMs: 60_000, pollMs: 20, verifierFor: () => sandboxVerifier });
        const started = performance.now();
        worker.start();
        while ((await database.prisma.job.findUniqueOrThrow({ where: { id: jobId } })).status !== 'completed') await new Promise((r) => setTimeout(r, 20));
        const ms = performance.now() - started;
        await worker.stop();
        figures.push({ dialect, mode: sandbox ? 'sandbox' : 'production (sandbox engine)', perSecond: Math.round(addresses / (ms / 1000)) });
      } finally {
        await database.prisma.$disconnect();
        await fresh.drop();
      }
    }
  }
  return figures;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const n = Number(process.argv[2] ?? 100_000);
  for (const f of await workerThroughput(n)) console.log(`${f.dialect.padEnd(8)} ${f.mode.padEnd(28)} ${f.perSecond.toLocaleString('en-US')} addresses/s`);
  process.exit(0);
}
