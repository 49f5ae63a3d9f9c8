/**
 * The chaos run (issue 19): 10 concurrent production jobs of a few hundred addresses against slow
 * local peers (dnsmasq, a mail server answering every line 150 ms late), on a private PostgreSQL
 * (test/peers/postgres.ts), with `npm run worker` processes and the built web server (its embedded
 * worker too) killed with SIGKILL at random failpoints or at random moments, random cancels, and one
 * PostgreSQL restart. At the end every job must be terminal, no address stored twice, and the
 * books hold for every account. Run alone: npx tsx bench/chaos.ts
 */
import type { ChildProcess } from 'node:child_process';
import { ensureAccount } from '../lib/accounts/users';
import { grantCredits } from '../lib/accounts/quota';
import { useDatabase, type Database } from '../lib/db/client';
import { startCountingSmtp } from '../test/peers/counting-smtp';
import { startDnsmasq } from '../test/peers/dnsmasq';
import { startPrivatePostgres } from '../test/peers/postgres';
import { startServer, type BenchServer } from './server';
import { startWorkerProcess } from './worker-process';
import { auditBooks, type Audit } from './chaos-audit';

export interface ChaosReport {
  jobs: number;
  addresses: number;
  stored: number;
  cancels: number;
  workerKills: number;
  serverKills: number;
  pgRestarts: number;
  terminal: Record<string, number>;
  wallMs: number;
  audit: Audit;
}

const JOBS = 10;
const DOMAINS = 10;
const CREDITS = 10_000;
const FAILPOINTS = ['worker.after-save', 'chunk.after-complete', 'job.before-finish'];

const random = (n: number) => Math.floor(Math.random() * n);
const pick = <T>(list: T[]) => list[random(list.length)]!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** a failpoint at a random pass, so processes die at different steps of different chunks */
const randomFailpoint = () => `${pick(FAILPOINTS)}=${1 + random(4)}*exit`;

export async function runChaosBench({ addressesPerJob = 300, log = console.log } = {}): Promise<ChaosReport> {
  const started = performance.now();
  const ips = Array.from({ length: DOMAINS }, (_, i) => `127.0.0.${80 + i}`);
  const dns = await startDnsmasq(ips.flatMap((ip, i) => [`mx-host=chaos${i}.test,mx${i}.chaos.test,10`, `host-record=mx${i}.chaos.test,${ip}`]));
  const smtp = await startCountingSmtp({ hosts: ips, replyDelayMs: 150 });
  const pg = await startPrivatePostgres();
  const url = await pg.database('chaos');
  const env: Record<string, string> = {
    DATABASE_URL: url,
    EV_DNS_SERVERS: dns.server,
    EV_SMTP_PORT: String(smtp.port),
    EV_ALLOW_PRIVATE_NETWORKS: 'true',
    EV_EGRESS_POLICY: 'off',
    EV_FREE_DAILY: '0',
    EV_CHUNK_SIZE: '25',
    EV_LEASE_MS: '3000',
    EV_TRANSIENT_RETRY_MS: '1000',
    EV_WORKER_CONCURRENCY: '10',
    EV_SMTP_PACING: 'default=8/0',
    EV_CREATE_RATE_PER_MINUTE: '100000',
    EV_RATE_LIMIT_PER_MINUTE: '100000',
  };
  Object.assign(process.env, env);
  const database = await useDatabase(url);
  const counts = { cancels: 0, workerKills: 0, serverKills: 0, pgRestarts: 0 };
  let server: BenchServer | null = null;
  const workers = new Set<ChildProcess>();
  let running = true;
  const keepers: Promise<void>[] = [];
  try {
    const serverEnv = () => ({ ...env, EV_TEST_FAILPOINTS: randomFailpoint() });
    server = await startServer({ env: serverEnv(), accounts: JOBS });
    const keys = server.apiKeys;
    const accounts = await Promise.all(keys.map((_, i) => ensureAccount(database, i ? `bench${i}@example.com` : 'bench@example.com')));
    for (const account of accounts) await grantCredits(database, account.id, CREDITS);

    // the web server (with its embedded worker), restarted whenever a failpoint or the chaos kills it
    keepers.push(
      (async () => {
        while (running) {
          if (server?.exited() != null) {
            counts.serverKills++;
            await server.stop().catch(() => undefined);
            server = null;
          }
          while (running && !server) server = await startServer({ env: serverEnv(), accounts: 0 }).catch(() => null);
          await sleep(200);
        }
      })(),
    );
    // three worker processes, each replaced when a failpoint (or the chaos below) kills it
    const keepWorker = async (): Promise<void> => {
      while (running) {
        const child = await startWorkerProcess({ ...env, EV_TEST_FAILPOINTS: randomFailpoint() }).catch(() => null);
        if (!child) continue;
        if (!running) child.kill('SIGTERM');
        workers.add(child);
        const how = await new Promise<string>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? String(code))));
        workers.delete(child);
        if (how === 'SIGKILL') counts.workerKills++;
      }
    };
    keepers.push(keepWorker(), keepWorker(), keepWorker());

    const call = async (method: string, path: string, key: string, body?: unknown) => {
      for (let tries = 0; ; tries++) {
        try {
          if (!server) throw new Error('the web server is restarting');
          const response = await fetch(`${server.baseUrl}${path}`, {
            method,
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            body: body ? JSON.stringify(body) : undefined,
          });
          if (response.status < 500 || tries > 20) return { status: response.status, json: await response.json().catch(() => null) };
        } catch (error) {
          if (tries > 20) throw error;
        }
        await sleep(500); // the server is being restarted
      }
    };
    const jobs: { id: string; key: string }[] = [];
    await Promise.all(
      keys.map(async (key, j) => {
        const emails = Array.from({ length: addressesPerJob }, (_, i) => `${i % 5 < 3 ? 'ok' : 'no'}${j}x${i}@chaos${(i + j) % DOMAINS}.test`);
        const reply = await call('POST', '/v1/verify/bulk', key, { emails });
        if (reply.status >= 300) throw new Error(`submit: ${reply.status} ${JSON.stringify(reply.json)}`);
        jobs.push({ id: reply.json.data?.job_id ?? reply.json.job_id, key });
      }),
    );
    log(`  chaos: ${jobs.length} jobs of ${addressesPerJob} submitted`);

    // the chaos: cancels, a kill -9 of the web server, one of a worker, one PostgreSQL restart
    const events: Promise<void>[] = [];
    const at = (ms: number, what: () => Promise<void>) =>
      events.push(
        sleep(ms)
          .then(what)
          .catch((e) => log(`  chaos event failed: ${e}`)),
      );
    for (const job of [...jobs].sort(() => Math.random() - 0.5).slice(0, 3)) {
      at(2_000 + random(20_000), async () => {
        while (!server) await sleep(200);
        const reply = await call('DELETE', `/v1/verify/bulk/${job.id}`, job.key);
        if (reply.status === 200) counts.cancels++;
      });
    }
    at(6_000 + random(6_000), async () => {
      while (!server) await sleep(200);
      process.kill(-server.pid, 'SIGKILL'); // the keeper above restarts it
    });
    at(14_000 + random(4_000), async () => {
      await pg.restart();
      counts.pgRestarts++;
    });
    at(20_000 + random(5_000), async () => {
      [...workers][0]?.kill('SIGKILL');
    });
    await Promise.all(events);

    // every job must end: wait while the workers keep going
    const terminal = await waitTerminal(
      database,
      jobs.map((j) => j.id),
      300_000,
    );
    running = false;
    for (const w of workers) w.kill('SIGTERM');
    await Promise.all(keepers);
    const audit = await auditBooks(
      database,
      accounts.map((a) => a.id),
      CREDITS,
    );
    return {
      jobs: jobs.length,
      addresses: jobs.length * addressesPerJob,
      stored: audit.stored,
      ...counts,
      terminal,
      wallMs: Math.round(performance.now() - started),
      audit,
    };
  } finally {
    running = false;
    for (const w of workers) w.kill('SIGKILL');
    await server?.stop().catch(() => undefined);
    await database.prisma.$disconnect();
    await pg.close();
    await smtp.stop();
    await dns.stop();
  }
}

async function waitTerminal(database: Database, ids: string[], ms: number): Promise<Record<string, number>> {
  const end = Date.now() + ms;
  for (;;) {
    const rows = await database.prisma.job.findMany({ where: { id: { in: ids } }, select: { status: true } }).catch(() => null);
    if (rows) {
      const byStatus: Record<string, number> = {};
      for (const r of rows) byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
      if ((byStatus.queued ?? 0) + (byStatus.processing ?? 0) === 0 || Date.now() > end) return byStatus;
    }
    await sleep(250);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await runChaosBench();
  console.log(JSON.stringify(r, null, 2));
  process.exit(r.audit.ok ? 0 : 1);
}
