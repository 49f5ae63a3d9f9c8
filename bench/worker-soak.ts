/**
 * A worker's memory over a long run (issue 21): one `npm run worker` process on PostgreSQL, fed
 * steadily for `ms` with production jobs over the provider mix (test/peers/provider-mix.ts: dnsmasq
 * and a counting mail server, 10 ms per SMTP reply) and a 20,000-address sandbox job every 30 s.
 * Its RSS is sampled every 2 s; the figures are the mean of the second fifth and of the last fifth
 * of the run, and the least-squares slope after the first fifth (warm-up: pools, lists, JIT).
 * Run alone: npx tsx bench/worker-soak.ts [seconds]
 */
import type { ChildProcess } from 'node:child_process';
import { grantCredits } from '../lib/accounts/quota';
import { ensureAccount } from '../lib/accounts/users';
import { useDatabase } from '../lib/db/client';
import { submitQueued } from '../lib/jobs/intake/submit';
import { OPEN_STATES } from '../lib/jobs/states';
import { freshDatabaseUrl } from '../test/databases';
import { pacingSpec, providerMix, startMixPeers } from '../test/peers/provider-mix';
import { treeRssMb } from './server';
import { rssTrend } from './soak';
import { startWorkerProcess, stopWorker } from './worker-process';

export interface WorkerSoakReport {
  seconds: number;
  jobs: { production: number; sandbox: number };
  verified: number;
  early: { rssMb: number };
  late: { rssMb: number };
  peakMb: number;
  rssGrowthMb: number;
  rssSlopeMbPerMin: number;
}

const PRODUCTION_JOB = 500;
const SANDBOX_JOB = 20_000;
const SANDBOX_EVERY_MS = 30_000;
const PACING = {
  google: { concurrency: 8, perMinute: 6000 },
  microsoft: { concurrency: 6, perMinute: 6000 },
  yahoo: { concurrency: 4, perMinute: 6000 },
  default: { concurrency: 2, perMinute: 6000 },
};

export async function runWorkerSoak(ms: number, log: (line: string) => void = () => {}): Promise<WorkerSoakReport> {
  const mix = providerMix(2_000, { tag: 'soak' });
  const peers = await startMixPeers(mix, 10);
  const fresh = await freshDatabaseUrl('postgres');
  process.env.DATABASE_URL = fresh.url;
  const database = await useDatabase(fresh.url);
  let worker: ChildProcess | undefined;
  try {
    const account = await ensureAccount(database, 'worker-soak@bench.test');
    await grantCredits(database, account.id, 10_000_000);
    worker = await startWorkerProcess({
      DATABASE_URL: fresh.url,
      EV_DNS_SERVERS: peers.dns.server,
      EV_SMTP_PORT: String(peers.smtp.port),
      EV_SMTP_PACING: pacingSpec(PACING),
      EV_WORKER_CONCURRENCY: '50',
      EV_GLOBAL_CONCURRENCY: '50',
      EV_SANDBOX_JOBS_PER_HOUR: '1000000',
    });
    const samples: { t: number; rssMb: number }[] = [];
    const started = performance.now();
    const sampler = setInterval(() => samples.push({ t: (performance.now() - started) / 1000, rssMb: treeRssMb(worker!.pid!) }), 2_000);
    const jobs = { production: 0, sandbox: 0 };
    let open: string[] = [];
    let nextSandbox = 0;
    let offset = 0;
    let logged = 0;
    try {
      while (performance.now() - started < ms) {
        if (worker.exitCode !== null) throw new Error(`the worker exited with ${worker.exitCode}`);
        const left = await database.prisma.job.findMany({ where: { id: { in: open }, status: { in: [...OPEN_STATES] } }, select: { id: true } });
        open = left.map((job) => job.id);
        // keep two jobs in the queue, and a sandbox job every 30 s
        if (open.length < 2) {
          const emails = Array.from({ length: PRODUCTION_JOB }, (_, i) => mix.emails[(offset + i) % mix.emails.length]!);
          offset += PRODUCTION_JOB;
          open.push((await submitQueued(database, { userId: account.id, sandbox: false, emails })).jobId);
          jobs.production++;
        }
        if (performance.now() - started >= nextSandbox) {
          const emails = Array.from({ length: SANDBOX_JOB }, (_, i) => `user${i}@soak${jobs.sandbox}.example`);
          open.push((await submitQueued(database, { userId: account.id, sandbox: true, emails })).jobId);
          jobs.sandbox++;
          nextSandbox += SANDBOX_EVERY_MS;
        }
        await new Promise((r) => setTimeout(r, 500));
        const last = samples.at(-1);
        if (last && samples.length >= logged + 30) {
          logged = samples.length;
          log(`  ${Math.round(last.t)} s: worker RSS ${last.rssMb.toFixed(0)} MB, ${jobs.production} production and ${jobs.sandbox} sandbox jobs submitted`);
        }
      }
    } finally {
      clearInterval(sampler);
    }
    const verified = await database.prisma.verification.count({ where: { userId: account.id } });
    const rss = rssTrend(samples);
    return {
      seconds: Math.round(ms / 1000),
      jobs,
      verified,
      early: { rssMb: rss.earlyMb },
      late: { rssMb: rss.lateMb },
      peakMb: Math.round(Math.max(...samples.map((s) => s.rssMb))),
      rssGrowthMb: rss.lateMb - rss.earlyMb,
      rssSlopeMbPerMin: rss.slopeMbPerMin,
    };
  } finally {
    if (worker) await stopWorker(worker);
    await database.prisma.$disconnect();
    await fresh.drop();
    await peers.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const seconds = Number(process.argv[2] ?? 600);
  runWorkerSoak(seconds * 1000, console.log).then(
    (r) => console.log(JSON.stringify(r, null, 2)),
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
}
