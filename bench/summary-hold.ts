/**
 * How long a job's summary holds the event loop on SQLite (issue 34): `addresses` stored results
 * (default 1,000,000) of one job, then the summary read the old way (one GROUP BY over the job) and
 * through `summarize` (lib/results/summary.ts, ranges of indexes), alternated `runs` times (default
 * 3): wall time, this process's CPU, and the longest the event loop went without a turn (wall time,
 * and this process's CPU in that time: on a loaded machine the first includes waiting for a core).
 *   npx tsx bench/summary-hold.ts 1000000 3
 */
import { ensureAccount } from '../lib/accounts/users';
import { useDatabase } from '../lib/db/client';
import { sqliteInsert } from '../lib/db/sql';
import { VERIFICATION_COLUMNS, verificationRow } from '../lib/results/rows';
import { summarize } from '../lib/results/summary';
import { sandboxVerdict } from '../lib/verifier/sandbox';
import { freshDatabaseUrl } from '../test/databases';

const addresses = Number(process.argv[2] ?? 1_000_000);
const runs = Number(process.argv[3] ?? 3);
const fresh = await freshDatabaseUrl('sqlite');
const database = await useDatabase(fresh.url);
const account = await ensureAccount(database, 'summary-hold@example.com');
const at = Date.now();
const bulk = database.bulk!;
for (let from = 0; from < addresses; from += 1_000) {
  const rows: unknown[][] = [];
  // every 10th index a duplicate (no result of its own)
  for (let idx = from; idx < Math.min(from + 1_000, addresses); idx++)
    if (idx % 10 !== 9)
      rows.push(
        verificationRow(sandboxVerdict(`user${idx}@sandbox${idx % 50}.test`), {
          userId: account.id,
          jobId: 'job_hold',
          idx,
          sandbox: true,
          source: 'bulk',
          cached: false,
          at,
        }),
      );
  bulk.transaction(() => sqliteInsert(bulk, 'verifications', VERIFICATION_COLUMNS, rows))();
}

/** the longest gap between turns of the event loop while `work` runs, in wall time and in this process's CPU */
async function measured(work: () => Promise<unknown>) {
  let longest = 0;
  let longestCpu = 0;
  let last = performance.now();
  let lastCpu = process.cpuUsage();
  let ticking = true;
  const tick = () => {
    const now = performance.now();
    const cpu = process.cpuUsage(lastCpu);
    longest = Math.max(longest, now - last);
    longestCpu = Math.max(longestCpu, (cpu.user + cpu.system) / 1000);
    last = now;
    lastCpu = process.cpuUsage();
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  const cpu = process.cpuUsage();
  const t = performance.now();
  const answer = await work();
  const wall = performance.now() - t;
  const used = process.cpuUsage(cpu);
  ticking = false;
  tick();
  return {
    answer: JSON.stringify(answer, (_, v) => (typeof v === 'bigint' ? Number(v) : v)),
    wallMs: Math.round(wall),
    cpuMs: Math.round((used.user + used.system) / 1000),
    longestMs: Math.round(longest),
    longestCpuMs: Math.round(longestCpu),
  };
}

const whole = () =>
  database.prisma.$queryRawUnsafe<{ n: bigint }[]>(
    `SELECT status, valid, COUNT(*) AS n FROM verifications WHERE job_id = ? GROUP BY status, valid`,
    'job_hold',
  );
const ranged = () => database.prisma.$transaction((tx) => summarize(tx, 'sqlite', 'job_hold', addresses, Math.floor(addresses / 10)));
for (let run = 0; run < runs; run++) {
  const before = await measured(whole);
  const after = await measured(ranged);
  console.log(JSON.stringify({ run, before: { ...before, answer: undefined }, after: { ...after, answer: undefined } }));
  if (run === 0) console.log(before.answer, after.answer);
}
await database.prisma.$disconnect();
await fresh.drop();
