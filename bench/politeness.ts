/**
 * One polite sender across processes: a production job over a realistic mix (30% of the addresses
 * on Google's MX names, 15% on Microsoft's, 10% on Yahoo's, the rest over many small domains with
 * an MX host each), 200 ms added to every SMTP reply, done by 1 and then by 3 `npm run worker`
 * processes on one PostgreSQL with fixed limits (EV_SMTP_PACING). The mail server (one listener
 * per MX host on 127.0.x.y, test/peers/counting-smtp.ts) counts connections open at once and opened
 * per minute; the wall time is compared with the ideal schedule those limits allow.
 * The list has 100,000 addresses over 5,000 small domains; at these paces that is hours,
 * so the list is scaled down (same mix, 45 small-domain addresses per 1,000 → one small domain per
 * 20 addresses). Run alone: npx tsx bench/politeness.ts [addresses]
 */
import type { ChildProcess } from 'node:child_process';
import { ensureAccount } from '../lib/accounts/users';
import { useDatabase } from '../lib/db/client';
import { submitQueued } from '../lib/jobs/intake/submit';
import { grantCredits } from '../lib/accounts/quota';
import { createDnsResolver } from '../lib/verifier/dns';
import type { Pacing } from '../lib/verifier/politeness';
import { createVerifier } from '../lib/verifier/verify';
import { freshDatabaseUrl } from '../test/databases';
import { treeCpuMs, treeRssMb } from './server';
import { startWorkerProcess, stopWorker, waitForJob } from './worker-process';
import type { CountingSmtp } from '../test/peers/counting-smtp';
import { providerMix, startMixPeers, type MixTarget, type ProviderMix } from '../test/peers/provider-mix';

const REPLY_DELAY_MS = 200;
const PER_PROCESS = 50; // EV_WORKER_CONCURRENCY and EV_GLOBAL_CONCURRENCY of each worker

/** A provider of the mix (test/peers/provider-mix.ts) with more MX hosts, and its pacing here. */
interface Target extends MixTarget {
  pacing: Pacing;
}

const TARGETS: Target[] = [
  {
    name: 'google',
    share: 0.3,
    domains: 20,
    pacing: { concurrency: 10, perMinute: 300 },
    mx: ['gmail-smtp-in.l.google.com', ...[1, 2, 3, 4].map((n) => `alt${n}.gmail-smtp-in.l.google.com`)],
    ips: [1, 2, 3, 4, 5].map((n) => `127.0.2.${n}`),
  },
  {
    name: 'microsoft',
    share: 0.15,
    domains: 10,
    pacing: { concurrency: 6, perMinute: 240 },
    mx: ['a-com.mail.protection.outlook.com', 'b-com.mail.protection.outlook.com', 'c-com.mail.protection.outlook.com'],
    ips: [1, 2, 3].map((n) => `127.0.3.${n}`),
  },
  {
    name: 'yahoo',
    share: 0.1,
    domains: 5,
    pacing: { concurrency: 3, perMinute: 120 },
    mx: ['mta5.am0.yahoodns.net', 'mta6.am0.yahoodns.net', 'mta7.am0.yahoodns.net'],
    ips: [1, 2, 3].map((n) => `127.0.4.${n}`),
  },
];
const SMALL_PACING: Pacing = { concurrency: 2, perMinute: 60 };
const PACING_SPEC = [
  ...TARGETS.map((t) => `${t.name}=${t.pacing.concurrency}/${t.pacing.perMinute}`),
  `default=${SMALL_PACING.concurrency}/${SMALL_PACING.perMinute}`,
].join(',');

export interface TargetFigures {
  addresses: number;
  limit: number;
  maxConcurrent: number;
  pacePerMinute: number;
  maxPerMinute: number;
}
export interface RunFigures {
  workers: number;
  wallMs: number;
  idealMs: number;
  ratio: number;
  statuses: Record<string, number>;
  targets: Record<string, TargetFigures>;
  smallHosts: { limit: number; maxConcurrent: number; pacePerMinute: number; maxPerMinute: number };
  rssStartMb: number[];
  rssEndMb: number[];
  cpuMsPerVerification: number;
}
export interface PolitenessReport {
  addresses: number;
  smallDomains: number;
  replyDelayMs: number;
  connectionMs: number;
  pacing: string;
  runs: RunFigures[];
}

/**
 * The fastest any schedule within the limits can finish: per target, the concurrency bound
 * (rounds of `connectionMs`) and the pace bound (n starts `60 s / pace` apart, the last one
 * lasting `connectionMs`), and the workers' own concurrency over all conversations.
 */
function idealMs(counts: Map<string, number>, smallPerDomain: number, total: number, connectionMs: number, workers: number): number {
  const bound = (n: number, pacing: Pacing) =>
    Math.max(Math.ceil(n / pacing.concurrency) * connectionMs, pacing.perMinute > 0 ? ((n - 1) * 60_000) / pacing.perMinute + connectionMs : 0);
  const bounds = TARGETS.map((t) => bound(counts.get(t.name)!, t.pacing));
  bounds.push(bound(smallPerDomain, SMALL_PACING), Math.ceil(total / (PER_PROCESS * workers)) * connectionMs);
  return Math.max(...bounds);
}

export async function runPolitenessBench(total = Number(process.env.BENCH_POLITE_ADDRESSES ?? 2000)): Promise<PolitenessReport> {
  const list = providerMix(total, { targets: TARGETS });
  const peers = await startMixPeers(list, REPLY_DELAY_MS, TARGETS);
  const { dns, smtp } = peers;
  try {
    const connectionMs = await measureConnection(dns.server, smtp);
    const runs: RunFigures[] = [];
    for (const workers of [1, 3]) runs.push(await runJob(workers, list, dns.server, smtp, connectionMs));
    return {
      addresses: list.emails.length,
      smallDomains: list.smallIps.length,
      replyDelayMs: REPLY_DELAY_MS,
      connectionMs: Math.round(connectionMs),
      pacing: PACING_SPEC,
      runs,
    };
  } finally {
    await peers.stop();
  }
}

/** How long the server sees one connection (QUIT included), steady state: what a concurrency slot costs. */
async function measureConnection(dnsServer: string, smtp: CountingSmtp): Promise<number> {
  const verifier = createVerifier({
    dns: createDnsResolver({ servers: [dnsServer] }),
    smtp: { port: smtp.port, heloName: 'bench.test', mailFrom: 'check@bench.test', connectTimeoutMs: 5000, commandTimeoutMs: 10_000 },
    allowPrivateNetworks: true,
    perDomainConcurrency: 1,
    globalConcurrency: 1,
  });
  await verifier.verify('ok0@s0.test'); // the catch-all question is asked once per domain
  const before = smtp.connections.length;
  for (let i = 1; i <= 3; i++) await verifier.verify(`ok${i}@s0.test`);
  await new Promise((r) => setTimeout(r, REPLY_DELAY_MS * 2));
  const sample = smtp.connections.slice(before);
  return sample.reduce((sum, c) => sum + (c.closedAt! - c.openedAt), 0) / sample.length;
}

async function runJob(workers: number, list: ProviderMix, dnsServer: string, smtp: CountingSmtp, connectionMs: number): Promise<RunFigures> {
  const fresh = await freshDatabaseUrl('postgres');
  const saved = { DATABASE_URL: process.env.DATABASE_URL, EV_CHUNK_SIZE: process.env.EV_CHUNK_SIZE };
  process.env.DATABASE_URL = fresh.url;
  process.env.EV_CHUNK_SIZE = '100';
  const children: ChildProcess[] = [];
  const database = await useDatabase(fresh.url);
  try {
    for (let i = 0; i < workers; i++) children.push(await startWorker(fresh.url, dnsServer, smtp.port));
    const account = await ensureAccount(database, 'bench-politeness@example.com');
    await grantCredits(database, account.id, list.emails.length);
    const rssStartMb = children.map((c) => Math.round(treeRssMb(c.pid!)));
    const cpuStart = children.map((c) => treeCpuMs(c.pid!));
    const since = performance.now();
    const { jobId } = await submitQueued(database, { userId: account.id, sandbox: false, emails: list.emails });
    await waitForJob(database, jobId, children, 900_000);
    const wallMs = performance.now() - since;
    const cpuMsPerVerification = children.reduce((sum, c, i) => sum + treeCpuMs(c.pid!) - cpuStart[i]!, 0) / list.emails.length;
    const rssEndMb = children.map((c) => Math.round(treeRssMb(c.pid!)));
    const rows = await database.prisma.$queryRawUnsafe<{ status: string; n: bigint }[]>(
      'SELECT status, COUNT(*) AS n FROM verifications WHERE job_id = $1 GROUP BY status',
      jobId,
    );
    const targets: Record<string, TargetFigures> = {};
    for (const t of TARGETS) {
      targets[t.name] = {
        addresses: list.byTarget.get(t.name)!,
        limit: t.pacing.concurrency,
        maxConcurrent: smtp.maxConcurrent(t.ips, since),
        pacePerMinute: t.pacing.perMinute,
        maxPerMinute: smtp.maxOpenedWithin(t.ips, 60_000, since),
      };
    }
    const small = list.smallIps.map((ip) => ({ concurrent: smtp.maxConcurrent([ip], since), perMinute: smtp.maxOpenedWithin([ip], 60_000, since) }));
    const idealRunMs = idealMs(list.byTarget, list.smallPerDomain, list.emails.length, connectionMs, workers);
    return {
      workers,
      wallMs: Math.round(wallMs),
      idealMs: Math.round(idealRunMs),
      ratio: Number((wallMs / idealRunMs).toFixed(2)),
      statuses: Object.fromEntries(rows.map((r) => [r.status, Number(r.n)])),
      targets,
      smallHosts: {
        limit: SMALL_PACING.concurrency,
        maxConcurrent: Math.max(...small.map((s) => s.concurrent)),
        pacePerMinute: SMALL_PACING.perMinute,
        maxPerMinute: Math.max(...small.map((s) => s.perMinute)),
      },
      rssStartMb,
      rssEndMb,
      cpuMsPerVerification: Number(cpuMsPerVerification.toFixed(2)),
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

async function startWorker(url: string, dnsServer: string, port: number): Promise<ChildProcess> {
  return startWorkerProcess({
    DATABASE_URL: url,
    EV_WORKER_CONCURRENCY: String(PER_PROCESS),
    EV_GLOBAL_CONCURRENCY: String(PER_PROCESS),
    EV_SMTP_PACING: PACING_SPEC,
    EV_DNS_SERVERS: dnsServer,
    EV_SMTP_PORT: String(port),
  });
}

if (process.argv[1]?.endsWith('politeness.ts')) {
  runPolitenessBench(process.argv[2] ? Number(process.argv[2]) : undefined)
    .then(
      (report) => console.log(JSON.stringify(report, null, 2)),
      (error) => {
        console.error(error);
        process.exitCode = 1;
      },
    )
    .finally(() => setTimeout(() => process.exit(), 100).unref());
}
