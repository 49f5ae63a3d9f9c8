import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditCredits } from '@/lib/accounts/audit';
import { grantCredits } from '@/lib/accounts/quota';
import { ensureAccount } from '@/lib/accounts/users';
import type { Database } from '@/lib/db/client';
import { processedCount } from '@/lib/jobs/status/status';
import { submitQueued } from '@/lib/jobs/intake/submit';
import { createWebhook } from '@/lib/webhooks/manage';
import { freePort } from '../peers/common';
import { paceAllows } from '../peers/counting-smtp';
import type { PrivatePostgres } from '../peers/postgres';
import { MIX_TARGETS, pacingSpec, providerMix, startMixPeers } from '../peers/provider-mix';
import { booksOf, jobStatusOf, restartableDatabase, startWorkerProcess, type WorkerProcess } from './processes';

// A fleet (issue 21's test): three `npm run worker` processes on one PostgreSQL server of the
// test's own, each sending from its own loopback address (EV_SMTP_SOURCE_IP 127.0.0.101-103, with
// a HELO name of its own), verify 10,000 production addresses over a provider mix (30% Google,
// 15% Microsoft, 10% Yahoo, the rest 500 small domains) against one counting mail server that sees
// each connection's client IP. Every few seconds one worker is killed with SIGKILL and started
// again, and PostgreSQL is restarted once mid-job. The job completes; every address is stored
// once; the credits are exact; at the mail server every (client IP, provider) stays within its
// concurrency and pace, and three IPs get about three budgets; bulk.completed reaches each of two
// endpoints once.
const TOTAL = 10_000;
const PACING = {
  google: { concurrency: 6, perMinute: 2400 },
  microsoft: { concurrency: 4, perMinute: 1800 },
  yahoo: { concurrency: 3, perMinute: 1200 },
  default: { concurrency: 2, perMinute: 600 },
};
const EGRESSES = ['127.0.0.101', '127.0.0.102', '127.0.0.103'];
const WINDOW_MS = 10_000;
const KILL_EVERY_MS = 5_000;
const TOKEN = 'fleet-metrics';

let peers: Awaited<ReturnType<typeof startMixPeers>>;
let pg: PrivatePostgres;
let url: string;
let database: Database;
let close: () => Promise<void>;
const receivers: Server[] = [];
const events: string[][] = [[], []];
const mix = providerMix(TOTAL, { tag: 'f' });

beforeAll(async () => {
  peers = await startMixPeers(mix, 10);
  ({ pg, url, database, close } = await restartableDatabase({ EV_ALLOW_PRIVATE_NETWORKS: 'true', EV_FREE_DAILY: '0' }));
  for (const seen of events) {
    const receiver = createServer((request, response) => {
      let body = '';
      request
        .on('data', (chunk) => (body += chunk))
        .on('end', () => {
          seen.push((JSON.parse(body) as { type: string }).type);
          response.end('ok');
        });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receivers.push(receiver);
  }
}, 120_000);

afterAll(async () => {
  await close?.();
  await peers?.stop();
  for (const receiver of receivers) await new Promise((resolve) => receiver.close(resolve));
});

function startWorker(sourceIp: string, metricsPort = 0): Promise<WorkerProcess> {
  return startWorkerProcess({
    DATABASE_URL: url,
    EV_DNS_SERVERS: peers.dns.server,
    EV_SMTP_PORT: String(peers.smtp.port),
    EV_ALLOW_PRIVATE_NETWORKS: 'true',
    EV_HELO_NAME: 'verifier.test',
    EV_MAIL_FROM: 'check@verifier.test',
    EV_EGRESS_POLICY: 'off',
    EV_SMTP_PACING: pacingSpec(PACING),
    EV_SMTP_SOURCE_IP: sourceIp,
    EV_SMTP_SOURCE_HELO: `out-${sourceIp.split('.').at(-1)}.verifier.test`,
    EV_WORKER_CONCURRENCY: '40',
    EV_GLOBAL_CONCURRENCY: '40',
    EV_LEASE_MS: '3000',
    EV_CHUNK_SIZE: '100',
    EV_TRANSIENT_RETRY_MS: '500',
    // a killed worker's politeness leases expire after connect + conversation + 10 s
    EV_SMTP_CONNECT_TIMEOUT_MS: '2000',
    EV_SMTP_CONVERSATION_TIMEOUT_MS: '4000',
    EV_METRICS_TOKEN: TOKEN,
    EV_METRICS_PORT: String(metricsPort),
  });
}

/** A read of our own that PostgreSQL's restart may refuse: null then. */
const orNull = <T>(read: Promise<T>) => read.catch(() => null);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a fleet of three egresses on PostgreSQL, workers killed every few seconds, the database restarted once', () => {
  it('completes once per address with exact credits, keeps each (client IP, provider) within its limits, and gets three budgets', async () => {
    const account = await ensureAccount(database, 'fleet@example.com');
    await grantCredits(database, account.id, TOTAL);
    for (const receiver of receivers) {
      await createWebhook(database, account.id, {
        url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
        events: ['bulk.completed', 'bulk.failed'],
      });
    }
    const metricsPort = await freePort();
    const workers = await Promise.all(EGRESSES.map((ip, i) => startWorker(ip, i === 0 ? metricsPort : 0)));
    const since = performance.now();
    const { jobId } = await submitQueued(database, { userId: account.id, sandbox: false, emails: mix.emails });
    let kills = 0;
    let restarted = false;
    let scraped = '';
    try {
      const deadline = Date.now() + 240_000;
      let nextKill = Date.now() + KILL_EVERY_MS;
      for (;;) {
        const status = await orNull(jobStatusOf(database, jobId));
        if (status === 'completed' || status === 'failed') break;
        if (Date.now() > deadline) throw new Error(`the job is ${status} after ${Math.round(performance.now() - since)} ms (${kills} kills)`);
        const processed = await orNull(processedCount(database, jobId));
        if (!restarted && processed !== null && processed >= TOTAL / 2) {
          await pg.restart();
          restarted = true;
        }
        if (Date.now() >= nextKill) {
          const i = kills++ % workers.length;
          // the metrics of worker 0 (they start again with its process): read before it is killed
          if (i === 0) scraped = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
          await workers[i]!.kill('SIGKILL');
          workers[i] = await startWorker(EGRESSES[i]!, i === 0 ? metricsPort : 0);
          nextKill = Date.now() + KILL_EVERY_MS;
        }
        await sleep(200);
      }
      console.log(`[fleet] ${TOTAL} addresses in ${Math.round(performance.now() - since)} ms, ${kills} workers killed, PostgreSQL restarted: ${restarted}`);
      expect(await jobStatusOf(database, jobId)).toBe('completed');
      expect(restarted).toBe(true);
      expect(kills).toBeGreaterThanOrEqual(3);
      for (let i = 0; i < 50 && events.some((seen) => !seen.includes('bulk.completed')); i++) await sleep(100);
      await sleep(2_000); // a second delivery would come by now
      for (const seen of events) expect(seen).toEqual(['bulk.completed']);
      expect(scraped).toMatch(/ev_smtp_replies_total\{class="(accepted|rejected)",provider="[a-z]+",egress="ip:127\.0\.0\.101"\} [1-9]/);
    } finally {
      await Promise.all(workers.map((worker) => worker.kill('SIGTERM')));
    }

    // every address stored once, with the verdict its mailbox has; the account paid exactly its chargeable results
    const books = await booksOf(database, account.id, jobId, TOTAL);
    expect(books).toMatchObject({ stored: TOTAL, distinct: TOTAL, paid: books.chargeable });
    expect(books.chargeable).toBe(TOTAL);
    const rows = await database.prisma.$queryRawUnsafe<{ status: string; n: bigint }[]>(
      'SELECT status, COUNT(*) AS n FROM verifications WHERE job_id = $1 GROUP BY status',
      jobId,
    );
    const okCount = mix.emails.filter((e) => e.startsWith('ok')).length;
    expect(Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]))).toEqual({ deliverable: okCount, undeliverable: TOTAL - okCount });
    expect((await auditCredits(database)).problems).toEqual([]);

    const { smtp } = peers;
    const seen = smtp.connections.filter((c) => c.openedAt >= since);
    // each worker sent from its own address, saying that address's HELO name
    expect(new Set(seen.map((c) => c.client))).toEqual(new Set(EGRESSES));
    // (a connection a SIGKILL cut before its EHLO said none)
    for (const c of seen) if (c.helo !== null) expect(c.helo).toBe(`out-${c.client.split('.').at(-1)}.verifier.test`);
    expect(seen.filter((c) => c.helo === null).length).toBeLessThan(seen.length / 10);
    for (const ip of EGRESSES) {
      for (const target of MIX_TARGETS) {
        const pacing = PACING[target.name as keyof typeof PACING];
        expect(smtp.maxConcurrent(target.ips, since, ip), `${target.name} from ${ip}`).toBeLessThanOrEqual(pacing.concurrency);
        // GCRA spacing: at most perMinute × window / 60 s starts in any window (one late start aside)
        expect(smtp.maxOpenedWithin(target.ips, WINDOW_MS, since, ip), `${target.name} from ${ip}`).toBeLessThanOrEqual(
          paceAllows(pacing.perMinute, WINDOW_MS),
        );
      }
      for (const host of mix.smallIps) {
        expect(smtp.maxConcurrent([host], since, ip)).toBeLessThanOrEqual(PACING.default.concurrency);
        expect(smtp.maxOpenedWithin([host], WINDOW_MS, since, ip)).toBeLessThanOrEqual(paceAllows(PACING.default.perMinute, WINDOW_MS));
      }
    }
    // three budgets: in some window the three IPs together opened well over what one IP's pace
    // allows (a budget shared by the fleet would hold them to one IP's), and never more than three
    for (const target of MIX_TARGETS) {
      const pacing = PACING[target.name as keyof typeof PACING];
      const oneIp = (pacing.perMinute * WINDOW_MS) / 60_000;
      const opened = smtp.maxOpenedWithin(target.ips, WINDOW_MS, since);
      console.log(`[fleet] ${target.name}: at most ${opened} connections opened in ${WINDOW_MS} ms (one IP's pace allows ${oneIp})`);
      if (target.name === 'google') expect(opened, target.name).toBeGreaterThan(1.8 * oneIp);
      expect(opened, target.name).toBeLessThanOrEqual(3 * (oneIp + 1));
      expect(smtp.maxConcurrent(target.ips, since), target.name).toBeLessThanOrEqual(3 * pacing.concurrency);
    }
  }, 300_000);
});
