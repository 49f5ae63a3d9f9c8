/**
 * Scale-out benchmark: an I/O-bound production job (real dnsmasq and Postfix, 200 ms added to every
 * SMTP reply) on PostgreSQL, finished by 1 and then by 3 `npm run worker` processes, each with the
 * same fixed concurrency. Run alone: npx tsx bench/workers.ts
 */
import type { ChildProcess } from 'node:child_process';
import { ensureAccount } from '../lib/accounts/users';
import { useDatabase, type Database } from '../lib/db/client';
import { submitQueued } from '../lib/jobs/intake/submit';
import { grantCredits } from '../lib/accounts/quota';
import { createDnsResolver } from '../lib/verifier/dns';
import { createVerifier } from '../lib/verifier/verify';
import { freshDatabaseUrl } from '../test/databases';
import { treeCpuMs } from './server';
import { startWorkerProcess, stopWorker, waitForJob } from './worker-process';
import { startProductionPeers, type ProductionPeers } from './production';

export interface WorkersReport {
  addresses: number;
  chunkSize: number;
  concurrencyPerWorker: number;
  replyDelayMs: number;
  oneWorkerMs: number;
  threeWorkersMs: number;
  speedup: number;
  statuses: Record<string, number>;
  chunksPerWorker: number[];
}

export async function runWorkersBench(options = { addresses: 960, chunkSize: 40, concurrency: 20, replyDelayMs: 200 }): Promise<WorkersReport> {
  const peers = await startProductionPeers(options.replyDelayMs);
  try {
    // a mix of every domain, half of the addresses existing
    const emails = peers.addresses.filter((_, i) => i % 2 === 0 || i % 10 === 1).slice(0, options.addresses);
    // Postfix starts an smtpd process per concurrent connection on first need: let it have as many
    // as three workers use before either run is timed, so neither pays for the peer's start-up
    await warmPeers(peers, 3 * options.concurrency);
    const one = await timeJob(peers, emails, 1, options);
    const three = await timeJob(peers, emails, 3, options);
    return {
      addresses: emails.length,
      chunkSize: options.chunkSize,
      concurrencyPerWorker: options.concurrency,
      replyDelayMs: options.replyDelayMs,
      oneWorkerMs: Math.round(one.ms),
      threeWorkersMs: Math.round(three.ms),
      speedup: Number((one.ms / three.ms).toFixed(2)),
      statuses: three.statuses,
      chunksPerWorker: three.chunksPerWorker,
    };
  } finally {
    await peers.stop();
  }
}

async function warmPeers(peers: ProductionPeers, connections: number): Promise<void> {
  const verifier = createVerifier({
    dns: createDnsResolver({ servers: [peers.dns.server] }),
    smtp: { port: peers.smtpPort, heloName: 'bench.test', mailFrom: 'check@bench.test', connectTimeoutMs: 5000, commandTimeoutMs: 10_000 },
    allowPrivateNetworks: true,
    perDomainConcurrency: connections,
    globalConcurrency: connections,
  });
  await Promise.all(
    peers.addresses
      .filter((a) => a.endsWith('@d1.test'))
      .concat(peers.addresses.filter((a) => a.endsWith('@d2.test')))
      .slice(0, connections)
      .map((a) => verifier.verify(a)),
  );
}

async function timeJob(peers: ProductionPeers, emails: string[], workers: number, options: { chunkSize: number; concurrency: number }) {
  const fresh = await freshDatabaseUrl('postgres');
  const saved = { DATABASE_URL: process.env.DATABASE_URL, EV_CHUNK_SIZE: process.env.EV_CHUNK_SIZE };
  process.env.DATABASE_URL = fresh.url;
  process.env.EV_CHUNK_SIZE = String(options.chunkSize);
  let database: Database | undefined;
  const children: ChildProcess[] = [];
  try {
    database = await useDatabase(fresh.url);
    // the workers start (and connect) first, so the clock measures verification, not start-up
    for (let i = 0; i < workers; i++) children.push(await startWorker(fresh.url, peers, options.concurrency));
    const account = await ensureAccount(database, 'bench-workers@example.com');
    await grantCredits(database, account.id, emails.length);
    const cpuAtStart = children.map((c) => treeCpuMs(c.pid!));
    const start = performance.now();
    const { jobId } = await submitQueued(database, { userId: account.id, sandbox: false, emails });
    await waitForJob(database, jobId, children, 300_000, 50);
    const ms = performance.now() - start;
    if (process.env.BENCH_DEBUG)
      console.error(
        'cpu ms per worker during the job',
        children.map((c, i) => treeCpuMs(c.pid!) - cpuAtStart[i]!),
      );
    const rows = await database.prisma.$queryRawUnsafe<{ status: string; n: bigint }[]>(
      'SELECT status, COUNT(*) AS n FROM verifications WHERE job_id = $1 GROUP BY status',
      jobId,
    );
    if (process.env.BENCH_DEBUG) {
      const spans = await database.prisma.$queryRawUnsafe<{ c: number; lo: bigint; hi: bigint }[]>(
        `SELECT v.idx / ${options.chunkSize} AS c, MIN(v.created_at) AS lo, MAX(v.created_at) AS hi FROM verifications v WHERE job_id = $1 GROUP BY 1 ORDER BY 1`,
        jobId,
      );
      const t0 = Math.min(...spans.map((r) => Number(r.lo)));
      console.error('chunk spans (ms after first result)', spans.map((r) => `${r.c}:${Number(r.lo) - t0}-${Number(r.hi) - t0}`).join(' '));
    }
    const perWorker = await database.prisma.$queryRawUnsafe<{ n: bigint }[]>(
      'SELECT COUNT(*) AS n FROM job_chunks WHERE job_id = $1 GROUP BY worker_id ORDER BY n DESC',
      jobId,
    );
    return { ms, statuses: Object.fromEntries(rows.map((r) => [r.status, Number(r.n)])), chunksPerWorker: perWorker.map((r) => Number(r.n)) };
  } finally {
    await Promise.all(children.map(stopWorker));
    await database?.prisma.$disconnect();
    await fresh.drop();
    Object.assign(process.env, saved);
    if (saved.DATABASE_URL === undefined) delete process.env.DATABASE_URL;
    if (saved.EV_CHUNK_SIZE === undefined) delete process.env.EV_CHUNK_SIZE;
  }
}

async function startWorker(url: string, peers: ProductionPeers, concurrency: number): Promise<ChildProcess> {
  return startWorkerProcess({
    DATABASE_URL: url,
    EV_WORKER_CONCURRENCY: String(concurrency),
    // each worker's own limits are not what binds: its concurrency is
    EV_PER_DOMAIN_CONCURRENCY: String(concurrency),
    EV_GLOBAL_CONCURRENCY: String(concurrency),
    // nor the per-host limits the workers now share, nor a pace (bench/politeness.ts measures those)
    EV_SMTP_PACING: `default=${3 * concurrency}/0`,
    EV_DNS_SERVERS: peers.dns.server,
    EV_SMTP_PORT: String(peers.smtpPort),
  });
}

if (process.argv[1]?.endsWith('workers.ts')) {
  runWorkersBench()
    .then(
      (report) => console.log(JSON.stringify(report, null, 2)),
      (error) => {
        console.error(error);
        process.exitCode = 1;
      },
    )
    .finally(() => setTimeout(() => process.exit(), 100).unref());
}
