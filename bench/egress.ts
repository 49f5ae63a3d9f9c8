/**
 * One budget per sending IP: a provider-bound production job (the provider mix of
 * test/peers/provider-mix.ts; Google's pace binds it) done on PostgreSQL by 1, 2 and 3 `npm run
 * worker` processes, each sending from its own loopback address (EV_SMTP_SOURCE_IP 127.0.0.101-103)
 * under the same per-IP pacing. The counting mail server sees each connection's client IP. The
 * wall time of each run is compared with one IP's and with the ideal schedule of its N budgets.
 * The workers are warmed first by an untimed 100-address job (lists loaded, pools connected).
 * A last run has 3 workers that state no egress: one budget for all of them, as before issue 21.
 * Run alone: npx tsx bench/egress.ts [addresses]
 */
import type { ChildProcess } from 'node:child_process';
import { ensureAccount } from '../lib/accounts/users';
import { useDatabase } from '../lib/db/client';
import { submitQueued } from '../lib/jobs/intake/submit';
import { grantCredits } from '../lib/accounts/quota';
import type { Pacing } from '../lib/verifier/politeness';
import { freshDatabaseUrl } from '../test/databases';
import { MIX_TARGETS, pacingSpec, providerMix, startMixPeers, type ProviderMix } from '../test/peers/provider-mix';
import type { CountingSmtp } from '../test/peers/counting-smtp';
import { startWorkerProcess, stopWorker, waitForJob } from './worker-process';

const REPLY_DELAY_MS = 50;
const PER_PROCESS = 50;
const SOURCE_IPS = ['127.0.0.101', '127.0.0.102', '127.0.0.103'];
// per sending IP; Google's pace binds the job at every IP count
export const PACING: Record<string, Pacing> = {
  google: { concurrency: 4, perMinute: 300 },
  microsoft: { concurrency: 4, perMinute: 600 },
  yahoo: { concurrency: 3, perMinute: 600 },
  default: { concurrency: 2, perMinute: 600 },
};

export interface EgressRun {
  ips: number;
  /** workers that shared the IPs' budgets (more than `ips` only in the run without egresses) */
  workers: number;
  wallMs: number;
  idealMs: number;
  ratio: number;
  speedup: number;
  /** per client IP: Google connections, the most open at once and opened in any minute */
  google: { ip: string; opened: number; maxConcurrent: number; maxPerMinute: number }[];
  statuses: Record<string, number>;
}
export interface EgressReport {
  addresses: number;
  google: number;
  pacing: string;
  replyDelayMs: number;
  runs: EgressRun[];
}

/** The fastest a schedule within N budgets can go: per target its pace and concurrency times N, and the workers' concurrency. */
function idealMs(mix: ProviderMix, ips: number, connectionMs: number): number {
  const bound = (n: number, p: Pacing) =>
    Math.max(Math.ceil(n / (p.concurrency * ips)) * connectionMs, p.perMinute > 0 ? ((n - ips) * 60_000) / (p.perMinute * ips) + connectionMs : 0);
  const bounds = MIX_TARGETS.map((t) => bound(mix.byTarget.get(t.name)!, PACING[t.name]!));
  bounds.push(bound(mix.smallPerDomain, PACING.default!), Math.ceil(mix.emails.length / (PER_PROCESS * ips)) * connectionMs);
  return Math.max(...bounds);
}

export async function runEgressBench(total = Number(process.env.BENCH_EGRESS_ADDRESSES ?? 1000)): Promise<EgressReport> {
  const mix = providerMix(total, { tag: 'e' });
  const peers = await startMixPeers(mix, REPLY_DELAY_MS);
  try {
    const runs: EgressRun[] = [];
    const counts = (process.env.BENCH_EGRESS_IPS ?? '1,2,3').split(',').map(Number);
    for (const ips of counts) runs.push(await runJob(ips, ips, mix, peers.dns.server, peers.smtp));
    if (!process.env.BENCH_EGRESS_IPS) runs.push(await runJob(1, 3, mix, peers.dns.server, peers.smtp));
    for (const run of runs) run.speedup = Number((runs[0]!.wallMs / run.wallMs).toFixed(2));
    return { addresses: mix.emails.length, google: mix.byTarget.get('google')!, pacing: pacingSpec(PACING), replyDelayMs: REPLY_DELAY_MS, runs };
  } finally {
    await peers.stop();
  }
}

/** `workers` processes over `ips` egresses; with more workers than IPs none states one (all share `default`, the system's address). */
async function runJob(ips: number, workers: number, mix: ProviderMix, dnsServer: string, smtp: CountingSmtp): Promise<EgressRun> {
  const fresh = await freshDatabaseUrl('postgres');
  const saved = { DATABASE_URL: process.env.DATABASE_URL, EV_CHUNK_SIZE: process.env.EV_CHUNK_SIZE };
  process.env.DATABASE_URL = fresh.url;
  process.env.EV_CHUNK_SIZE = '10';
  const children: ChildProcess[] = [];
  const database = await useDatabase(fresh.url);
  try {
    const sourceIps = workers > ips ? Array(workers).fill('') : SOURCE_IPS.slice(0, ips);
    for (const ip of sourceIps) {
      children.push(
        await startWorkerProcess({
          DATABASE_URL: fresh.url,
          EV_WORKER_CONCURRENCY: String(PER_PROCESS),
          EV_GLOBAL_CONCURRENCY: String(PER_PROCESS),
          EV_SMTP_PACING: pacingSpec(PACING),
          EV_DNS_SERVERS: dnsServer,
          EV_SMTP_PORT: String(smtp.port),
          EV_SMTP_SOURCE_IP: ip,
        }),
      );
    }
    const account = await ensureAccount(database, 'bench-egress@example.com');
    await grantCredits(database, account.id, mix.emails.length + 100);
    // warm-up, untimed: each worker loads its lists and opens its pools on a small-domain job
    const warm = await submitQueued(database, {
      userId: account.id,
      sandbox: false,
      emails: Array.from({ length: 100 }, (_, i) => `warm${i}@s${i % 10}.test`),
    });
    await waitForJob(database, warm.jobId, children, 120_000, 50);
    const since = performance.now();
    const { jobId } = await submitQueued(database, { userId: account.id, sandbox: false, emails: mix.emails });
    await waitForJob(database, jobId, children, 600_000, 50);
    const wallMs = performance.now() - since;
    const google = MIX_TARGETS.find((t) => t.name === 'google')!.ips;
    const seen = smtp.connections.filter((c) => c.openedAt >= since && google.includes(c.host));
    const connectionMs = seen.filter((c) => c.closedAt !== null).reduce((sum, c) => sum + c.closedAt! - c.openedAt, 0) / Math.max(1, seen.length);
    const clients = workers > ips ? ['127.0.0.1'] : SOURCE_IPS.slice(0, ips);
    if (process.env.BENCH_DEBUG) {
      for (const ip of clients) {
        const perSecond = Array(Math.ceil(wallMs / 1000)).fill(0);
        for (const c of seen) if (c.client === ip) perSecond[Math.floor((c.openedAt - since) / 1000)]++;
        console.error(ip, 'google opens per second', perSecond.join(' '));
      }
      const all = smtp.connections.filter((c) => c.openedAt >= since);
      const perSecond = Array(Math.ceil(wallMs / 1000)).fill(0);
      for (const c of all) perSecond[Math.floor((c.openedAt - since) / 1000)]++;
      console.error('all opens per second', perSecond.join(' '));
    }
    const rows = await database.prisma.$queryRawUnsafe<{ status: string; n: bigint }[]>(
      'SELECT status, COUNT(*) AS n FROM verifications WHERE job_id = $1 GROUP BY status',
      jobId,
    );
    const ideal = idealMs(mix, ips, connectionMs);
    return {
      ips,
      workers,
      wallMs: Math.round(wallMs),
      idealMs: Math.round(ideal),
      ratio: Number((wallMs / ideal).toFixed(2)),
      speedup: 1,
      google: clients.map((ip) => ({
        ip,
        opened: seen.filter((c) => c.client === ip).length,
        maxConcurrent: smtp.maxConcurrent(google, since, ip),
        maxPerMinute: smtp.maxOpenedWithin(google, 60_000, since, ip),
      })),
      statuses: Object.fromEntries(rows.map((r) => [r.status, Number(r.n)])),
    };
  } finally {
    await Promise.all(children.map(stopWorker));
    await database.prisma.$disconnect();
    await fresh.drop();
    for (const [name, value] of Object.entries(saved))
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
  }
}

if (process.argv[1]?.endsWith('egress.ts')) {
  runEgressBench(process.argv[2] ? Number(process.argv[2]) : undefined)
    .then(
      (report) => console.log(JSON.stringify(report, null, 2)),
      (error) => {
        console.error(error);
        process.exitCode = 1;
      },
    )
    .finally(() => setTimeout(() => process.exit(), 100).unref());
}
