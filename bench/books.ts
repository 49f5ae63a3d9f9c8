/**
 * The books on the hot paths, in this process on both databases with the production accounting and
 * the sandbox engine (EV_PRODUCTION_ENGINE=sandbox): production single checks (reserve, verify,
 * settle with the history row) at concurrency 10, instant bulks of 10, and one queued submit of
 * 100,000 addresses. Run alone: npx tsx bench/books.ts
 */
import { ensureAccount } from '../lib/accounts/users';
import { grantCredits } from '../lib/accounts/quota';
import { useDatabase } from '../lib/db/client';
import { verifySingle } from '../lib/checks/single';
import { submitBulk } from '../lib/jobs/intake/submit';
import { DIALECTS, freshDatabaseUrl } from '../test/databases';

export interface BooksFigures {
  dialect: string;
  singlePerSecond: number;
  singleCpuUs: number;
  instantPerSecond: number;
  instantCpuUs: number;
  queued100kMs: number;
}

export async function runBooksBench(singles = 3000, instants = 300): Promise<BooksFigures[]> {
  Object.assign(process.env, { EV_PRODUCTION_ENGINE: 'sandbox', EV_ALLOW_PLACEHOLDER_IDENTITY: 'true', EV_EGRESS_POLICY: 'off', EV_FREE_DAILY: '0' });
  const figures: BooksFigures[] = [];
  // BOOKS_DIALECTS=sqlite (or postgres) measures one
  for (const dialect of process.env.BOOKS_DIALECTS?.split(',') ?? DIALECTS) {
    const fresh = await freshDatabaseUrl(dialect as (typeof DIALECTS)[number]);
    const database = await useDatabase(fresh.url);
    try {
      const account = await ensureAccount(database, 'bench-books@example.com');
      await grantCredits(database, account.id, singles + instants * 10 + 200_000);
      // per second of wall time, and this process's CPU µs per operation (what other load on the machine moves least)
      const concurrent = async (count: number, work: (i: number) => Promise<unknown>) => {
        let next = 0;
        const started = performance.now();
        const cpu = process.cpuUsage();
        await Promise.all(
          Array.from({ length: 10 }, async () => {
            while (next < count) await work(next++);
          }),
        );
        const used = process.cpuUsage(cpu);
        return { perSecond: count / ((performance.now() - started) / 1000), cpuUs: (used.user + used.system) / count };
      };
      await concurrent(200, (i) => verifySingle(database, account.id, false, `warm${i}@example.com`));
      const single = await concurrent(singles, (i) => verifySingle(database, account.id, false, `single${i}@example.com`));
      const instant = await concurrent(instants, (i) =>
        submitBulk(database, { userId: account.id, sandbox: false, emails: Array.from({ length: 10 }, (_, j) => `i${i}x${j}@example.com`) }, async () => {}),
      );
      const emails = Array.from({ length: 100_000 }, (_, i) => `q${i}@example${i % 50}.com`);
      const started = performance.now();
      await submitBulk(database, { userId: account.id, sandbox: false, emails }, async () => {});
      figures.push({
        dialect,
        singlePerSecond: single.perSecond,
        singleCpuUs: single.cpuUs,
        instantPerSecond: instant.perSecond,
        instantCpuUs: instant.cpuUs,
        queued100kMs: performance.now() - started,
      });
    } finally {
      await database.prisma.$disconnect();
      await fresh.drop();
    }
  }
  return figures;
}

if (process.argv[1]?.endsWith('books.ts')) {
  const rounds = Number(process.env.BOOKS_ROUNDS ?? 3);
  for (let r = 0; r < rounds; r++)
    for (const f of await runBooksBench()) {
      console.log(
        `${f.dialect}: single ${f.singlePerSecond.toFixed(0)}/s (${f.singleCpuUs.toFixed(0)} µs CPU), instant bulk of 10 ${f.instantPerSecond.toFixed(0)}/s (${f.instantCpuUs.toFixed(0)} µs CPU), queued 100k submit ${f.queued100kMs.toFixed(0)} ms`,
      );
    }
  process.exit(0);
}
