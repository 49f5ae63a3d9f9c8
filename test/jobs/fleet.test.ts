import type { ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountUsage, grantCredits } from '@/lib/accounts/quota';
import { processedCount } from '@/lib/jobs/status';
import { submitQueued } from '@/lib/jobs/submit';
import { createWebhook } from '@/lib/webhooks/manage';
import { freePort } from '../peers/common';
import { MIX_TARGETS, pacingSpec, providerMix, startMixPeers } from '../peers/provider-mix';
import { setup } from '../api/harness';
import { startWorkerProcess } from './processes';

// A fleet: three `npm run worker` processes on one PostgreSQL, each sending from its own loopback
// address (EV_SMTP_SOURCE_IP 127.0.0.101-103, with a HELO name of its own), verify a production
// list over a provider mix against one counting mail server that sees each connection's client IP.
// One worker is killed with SIGKILL mid-job and started again. Providers count per sending IP:
// each (client IP, provider) must stay within its pacing, and three IPs must get about three
// times the budget of one. The job's bulk.completed reaches its webhook once.
const TOTAL = 2400;
const PACING = { google: { concurrency: 4, perMinute: 600 }, microsoft: { concurrency: 3, perMinute: 480 }, yahoo: { concurrency: 2, perMinute: 240 }, default: { concurrency: 2, perMinute: 600 } };
const EGRESSES = ['127.0.0.101', '127.0.0.102', '127.0.0.103'];
const WINDOW_MS = 10_000;
const TOKEN = 'fleet-metrics';

let peers: Awaited<ReturnType<typeof startMixPeers>>;
let ctx: Awaited<ReturnType<typeof setup>>;
let receiver: Server;
const events: string[] = [];
const mix = providerMix(TOTAL, { tag: 'f' });

beforeAll(async () => {
  peers = await startMixPeers(mix, 40);
  ctx = await setup('postgres', { EV_CHUNK_SIZE: '50', EV_ALLOW_PRIVATE_NETWORKS: 'true' });
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk)).on('end', () => {
      events.push((JSON.parse(body) as { type: string }).type);
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  await createWebhook(ctx.database, ctx.account.id, { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook` });
});

afterAll(async () => {
  await ctx?.teardown();
  await peers?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
});

async function startWorker(sourceIp: string, metricsPort = 0): Promise<ChildProcess> {
  return (await startWorkerProcess({
    EV_DNS_SERVERS: peers.dns.server, EV_SMTP_PORT: String(peers.smtp.port), EV_ALLOW_PRIVATE_NETWORKS: 'true',
    EV_HELO_NAME: 'verifier.test', EV_MAIL_FROM: 'check@verifier.test', EV_EGRESS_POLICY: 'off', EV_SMTP_PACING: pacingSpec(PACING),
    EV_SMTP_SOURCE_IP: sourceIp, EV_SMTP_SOURCE_HELO: `out-${sourceIp.split('.').at(-1)}.verifier.test`,
    EV_WORKER_CONCURRENCY: '40', EV_GLOBAL_CONCURRENCY: '40', EV_LEASE_MS: '3000',
    // a killed worker's politeness leases expire after connect + conversation + 10 s
    EV_SMTP_CONNECT_TIMEOUT_MS: '2000', EV_SMTP_CONVERSATION_TIMEOUT_MS: '4000',
    EV_METRICS_TOKEN: TOKEN, EV_METRICS_PORT: String(metricsPort),
  })).child;
}

const exited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null
  ? Promise.resolve() : new Promise<void>((resolve) => child.once('exit', () => resolve()));

describe('a fleet of three egresses on PostgreSQL, one worker killed and restarted', () => {
  it('completes once per address, keeps each (client IP, provider) within its limits, and gets three budgets', async () => {
    await grantCredits(ctx.database, ctx.account.id, TOTAL);
    const metricsPort = await freePort();
    const workers = await Promise.all(EGRESSES.map((ip, i) => startWorker(ip, i === 0 ? metricsPort : 0)));
    const since = performance.now();
    const { job_id: jobId } = await submitQueued(ctx.database, { userId: ctx.account.id, sandbox: false, emails: mix.emails });
    try {
      const deadline = Date.now() + 150_000;
      while ((await processedCount(ctx.database, jobId)) < TOTAL * 0.4) {
        if (Date.now() > deadline) throw new Error('the job did not get to 40%');
        await new Promise((r) => setTimeout(r, 100));
      }
      workers[1]!.kill('SIGKILL');
      await exited(workers[1]!);
      workers[1] = await startWorker(EGRESSES[1]!);
      for (;;) {
        const job = await ctx.database.prisma.job.findUnique({ where: { id: jobId } });
        if (job!.status === 'completed') break;
        if (Date.now() > deadline) throw new Error(`the job is ${job!.status} after ${Math.round(performance.now() - since)} ms`);
        await new Promise((r) => setTimeout(r, 200));
      }
      while (!events.includes('bulk.completed') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      await new Promise((r) => setTimeout(r, 2_000)); // a second delivery would come by now
      expect(events.filter((type) => type === 'bulk.completed')).toHaveLength(1);
      const scraped = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
      expect(scraped).toMatch(/ev_smtp_replies_total\{class="accepted",provider="google",egress="ip:127\.0\.0\.101"\} [1-9]/);
      expect(scraped).toMatch(/ev_politeness_wait_seconds_count\{provider="google",egress="ip:127\.0\.0\.101"\} [1-9]/);
    } finally {
      for (const worker of workers) worker.kill('SIGTERM');
      await Promise.all(workers.map(exited));
    }

    // every address stored once, with the verdict its mailbox has; credits charged once
    const rows = await ctx.database.prisma.$queryRawUnsafe<{ status: string; n: bigint; d: bigint }[]>(
      'SELECT status, COUNT(*) AS n, COUNT(DISTINCT idx) AS d FROM verifications WHERE job_id = $1 GROUP BY status', jobId);
    const okCount = mix.emails.filter((e) => e.startsWith('ok')).length;
    expect(Object.fromEntries(rows.map((r) => [r.status, [Number(r.n), Number(r.d)]]))).toEqual({
      deliverable: [okCount, okCount], undeliverable: [TOTAL - okCount, TOTAL - okCount],
    });
    const usage = await accountUsage(ctx.database, ctx.account.id);
    expect(usage.used_today + (TOTAL - usage.credits)).toBe(TOTAL);

    const { smtp } = peers;
    const seen = smtp.connections.filter((c) => c.openedAt >= since);
    // each worker sent from its own address, saying that address's HELO name
    expect(new Set(seen.map((c) => c.client))).toEqual(new Set(EGRESSES));
    // (a connection the SIGKILL cut before its EHLO said none)
    for (const c of seen) if (c.helo !== null) expect(c.helo).toBe(`out-${c.client.split('.').at(-1)}.verifier.test`);
    expect(seen.filter((c) => c.helo === null).length).toBeLessThan(seen.length / 10);
    for (const ip of EGRESSES) {
      for (const target of MIX_TARGETS) {
        const pacing = PACING[target.name as keyof typeof PACING];
        expect(smtp.maxConcurrent(target.ips, since, ip), `${target.name} from ${ip}`).toBeLessThanOrEqual(pacing.concurrency);
        // GCRA spacing: at most perMinute × window / 60 s starts in any window (one late start aside)
        expect(smtp.maxOpenedWithin(target.ips, WINDOW_MS, since, ip), `${target.name} from ${ip}`).toBeLessThanOrEqual(Math.ceil((pacing.perMinute * WINDOW_MS) / 60_000) + 1);
      }
      for (const host of mix.smallIps.slice(0, 20)) expect(smtp.maxConcurrent([host], since, ip)).toBeLessThanOrEqual(PACING.default.concurrency);
    }
    // three budgets: together the three IPs opened well over what one IP's pace allows (a budget
    // shared by the fleet, as before, holds them to one IP's). Google binds the job, so its three
    // budgets are used in full for a while; Microsoft's work runs out sooner.
    for (const [name, times] of [['google', 2.2], ['microsoft', 1.5]] as const) {
      const target = MIX_TARGETS.find((t) => t.name === name)!;
      const oneIp = (PACING[name].perMinute * WINDOW_MS) / 60_000;
      expect(smtp.maxOpenedWithin(target.ips, WINDOW_MS, since), name).toBeGreaterThan(times * oneIp);
      expect(smtp.maxConcurrent(target.ips, since), name).toBeLessThanOrEqual(3 * PACING[name].concurrency);
    }
  }, 200_000);
});
