/**
 * The job phase's memory, in-process (issue 34): a 1M sandbox job submitted, the submission's
 * garbage collected (`--expose-gc`), then one worker runs it while V8's heap spaces are sampled;
 * a full GC at the end tells live from garbage.
 *   node --expose-gc --max-old-space-size=1024 --import tsx bench/job-memory.ts 1000000
 * GC_BEFORE=0 leaves the submission's garbage in place (as in the server), TRACE=1 prints every
 * sample, SMAPS=1 glibc's heaps; add --trace-gc to see what each scavenge promotes.
 */
import v8 from 'node:v8';
import { ensureAccount } from '../lib/accounts/users';
import { useDatabase } from '../lib/db/client';
import { submitQueued } from '../lib/jobs/intake/submit';
import { JobWorker } from '../lib/jobs/worker/worker';
import { sandboxVerifier } from '../lib/verifier/sandbox';
import { freshDatabaseUrl } from '../test/databases';
import { smapsKinds } from './mem-trace';

const MB = 1048576;
const gc = (globalThis as { gc?: () => void }).gc;
function snapshot() {
  const spaces = Object.fromEntries(
    v8.getHeapSpaceStatistics().map((s) => [s.space_name, [Math.round(s.space_used_size / MB), Math.round(s.space_size / MB)]]),
  );
  const m = process.memoryUsage();
  return {
    rss: Math.round(m.rss / MB),
    old: spaces.old_space,
    new: spaces.new_space,
    lo: spaces.large_object_space,
    ext: Math.round(m.external / MB),
    ab: Math.round(m.arrayBuffers / MB),
  };
}

// SMAPS=1: glibc's heaps and the other anonymous mappings too (bench/mem-trace.ts)
const smaps = (label: string) => {
  if (process.env.SMAPS) console.log(label, JSON.stringify(smapsKinds(process.pid)));
};
const addresses = Number(process.argv[2] ?? 1_000_000);
const fresh = await freshDatabaseUrl('sqlite');
process.env.DATABASE_URL = fresh.url;
const database = await useDatabase(fresh.url);
const account = await ensureAccount(database, 'job-memory@example.com');
let emails: string[] | null = Array.from({ length: addresses }, (_, i) => `user${i}@sandbox${i % 50}.test`);
const submitCpu = process.cpuUsage();
const { jobId } = await submitQueued(database, { userId: account.id, sandbox: true, emails });
emails = null;
const submitUsed = process.cpuUsage(submitCpu);
console.log(`submitted: CPU ${Math.round((submitUsed.user + submitUsed.system) / 1000)} ms`, JSON.stringify(snapshot()));
if (process.env.GC_BEFORE !== '0') gc?.();
console.log('after gc', JSON.stringify(snapshot()));
smaps('after gc');
const worker = new JobWorker(database, { concurrency: 50, leaseMs: 60_000, pollMs: 20, verifierFor: () => sandboxVerifier });
const cpu = process.cpuUsage();
const t = performance.now();
worker.start();
let peak = 0;
for (;;) {
  const s = snapshot();
  peak = Math.max(peak, s.rss);
  if (process.env.TRACE) console.log(Math.round(performance.now() - t), JSON.stringify(s));
  if ((await database.prisma.job.findUniqueOrThrow({ where: { id: jobId } })).status === 'completed') break;
  await new Promise((r) => setTimeout(r, 200));
}
const used = process.cpuUsage(cpu);
console.log(`job ${Math.round(performance.now() - t)} ms, CPU ${Math.round((used.user + used.system) / 1000)} ms, peak RSS ${peak} MB`);
console.log('end', JSON.stringify(snapshot()));
await worker.stop();
gc?.();
console.log('end after gc', JSON.stringify(snapshot()));
smaps('end after gc');
await database.prisma.$disconnect();
process.exit(0);
