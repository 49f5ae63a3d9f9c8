import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantCredits } from '@/lib/accounts/quota';
import { claimChunk, releaseChunk } from '@/lib/jobs/queue';
import { submitQueued } from '@/lib/jobs/intake/submit';
import { DIALECTS } from '../databases';
import { startWorkerProcess } from './processes';
import { freePort } from '../peers/common';
import { setup } from '../api/harness';
import { startCountingSmtp, type CountingSmtp } from '../peers/counting-smtp';
import { startDnsmasq, type DnsPeer } from '../peers/dnsmasq';

// Greylisting is keyed by the client IP (Postgrey's default triplet: client address, sender,
// recipient): asked again from another IP, the server starts its clock again. A chunk handed back
// for greylisting goes back to the egress that knocked.
const GREY_MS = 2_000;
const EGRESSES = ['127.0.0.111', '127.0.0.112'];

describe.each(DIALECTS)('claiming a chunk pinned to an egress on %s', (dialect) => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  beforeAll(async () => {
    ctx = await setup(dialect, { EV_CHUNK_SIZE: '5' });
  });
  afterAll(async () => ctx.teardown());

  it('leaves it to its egress until the pin runs out, then anyone takes it', async () => {
    await submitQueued(ctx.database, { userId: ctx.account.id, sandbox: true, emails: Array.from({ length: 11 }, (_, i) => `valid${i}@x.com`) });
    // leases and retry times are on the database's clock: the pin is real time here
    const pinMs = 3_000;
    const first = (await claimChunk(ctx.database, 'wa', 60_000, { egress: 'ip:a', pinMs }))!;
    await releaseChunk(ctx.database, first, 0, { egress: 'ip:a' });
    // the other egress takes the other chunks, never the pinned one
    const other = [
      await claimChunk(ctx.database, 'wb', 60_000, { egress: 'ip:b', pinMs }),
      await claimChunk(ctx.database, 'wb', 60_000, { egress: 'ip:b', pinMs }),
    ];
    expect(other.map((c) => c!.no).sort()).toEqual([0, 1, 2].filter((n) => n !== first.no));
    expect(await claimChunk(ctx.database, 'wb', 60_000, { egress: 'ip:b', pinMs })).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, pinMs + 100));
    expect(await claimChunk(ctx.database, 'wb', 60_000, { egress: 'ip:b', pinMs })).toMatchObject({ no: first.no });
  });

  it('gives it to its own egress at once', async () => {
    const { jobId } = await submitQueued(ctx.database, {
      userId: ctx.account.id,
      sandbox: true,
      emails: Array.from({ length: 11 }, (_, i) => `valid-own${i}@x.com`),
    });
    // the first test's chunks are all leased for a minute
    const chunks = [];
    for (let i = 0; i < 3; i++) chunks.push((await claimChunk(ctx.database, 'wa', 60_000, { egress: 'ip:a' }))!);
    expect(chunks.every((c) => c.jobId === jobId)).toBe(true);
    await releaseChunk(ctx.database, chunks[0]!, 0, { egress: 'ip:a' });
    expect(await claimChunk(ctx.database, 'wa2', 60_000, { egress: 'ip:a', pinMs: 60_000 })).toMatchObject({ no: chunks[0]!.no });
  });
});

describe('greylisted addresses in a fleet of two egresses', () => {
  let dns: DnsPeer;
  let smtp: CountingSmtp;
  let ctx: Awaited<ReturnType<typeof setup>>;
  const firstKnock = new Map<string, number>();
  const knockedFrom = new Map<string, Set<string>>();

  beforeAll(async () => {
    dns = await startDnsmasq([...[0, 1, 2, 3].map((d) => `mx-host=grey${d}.test,mx.grey.test,10`), 'host-record=mx.grey.test,127.0.0.50'], ['test']);
    smtp = await startCountingSmtp({
      hosts: ['127.0.0.50'],
      rcpt: (address, client) => {
        const mailbox = address.replace(/[<>]/g, '');
        if (!mailbox.startsWith('ok')) return `550 5.1.1 <${mailbox}>: Recipient address rejected: User unknown`;
        knockedFrom.set(mailbox, (knockedFrom.get(mailbox) ?? new Set()).add(client));
        const key = `${client}|${mailbox}`;
        if (!firstKnock.has(key)) firstKnock.set(key, Date.now());
        const first = firstKnock.get(key)!;
        return Date.now() - first >= GREY_MS
          ? '250 2.1.5 Ok'
          : `450 4.2.0 <${mailbox}>: Recipient address rejected: Greylisted, see http://postgrey.schweikert.ch/help/grey.test.html`;
      },
    });
    ctx = await setup('postgres', { EV_CHUNK_SIZE: '4' });
    await grantCredits(ctx.database, ctx.account.id, 1000);
  });
  afterAll(async () => {
    await ctx?.teardown();
    await smtp?.stop();
    await dns?.stop();
  });

  async function startWorker(sourceIp: string, metricsPort = 0): Promise<ChildProcess> {
    return (
      await startWorkerProcess({
        EV_DNS_SERVERS: dns.server,
        EV_SMTP_PORT: String(smtp.port),
        EV_ALLOW_PRIVATE_NETWORKS: 'true',
        EV_HELO_NAME: 'verifier.test',
        EV_MAIL_FROM: 'check@verifier.test',
        EV_EGRESS_POLICY: 'off',
        EV_SMTP_SOURCE_IP: sourceIp,
        EV_GREYLIST_RETRY_MS: String(GREY_MS),
        EV_SMTP_PACING: 'default=4/0',
        EV_WORKER_CONCURRENCY: '8',
        EV_LEASE_MS: '5000',
        EV_METRICS_TOKEN: 'grey',
        EV_METRICS_PORT: String(metricsPort),
      })
    ).child;
  }

  it('asks each one again from the IP that first asked, and finds it deliverable', async () => {
    const metricsPort = await freePort();
    const workers = await Promise.all(EGRESSES.map((ip, i) => startWorker(ip, i === 0 ? metricsPort : 0)));
    try {
      const emails = Array.from({ length: 32 }, (_, i) => `ok${i}@grey${i % 4}.test`);
      const { jobId } = await submitQueued(ctx.database, { userId: ctx.account.id, sandbox: false, emails });
      const deadline = Date.now() + 60_000;
      while ((await ctx.database.prisma.job.findUnique({ where: { id: jobId } }))!.status !== 'completed') {
        if (Date.now() > deadline) throw new Error('the job did not complete');
        await new Promise((r) => setTimeout(r, 100));
      }
      const rows = await ctx.database.prisma.$queryRawUnsafe<{ status: string; n: bigint }[]>(
        'SELECT status, COUNT(*) AS n FROM verifications WHERE job_id = $1 GROUP BY status',
        jobId,
      );
      expect(Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]))).toEqual({ deliverable: 32 });
      // both egresses worked, and no address was asked from two
      expect(new Set(smtp.connections.map((c) => c.client))).toEqual(new Set(EGRESSES));
      expect([...knockedFrom.values()].map((clients) => clients.size)).toEqual(Array(32).fill(1));
      // the worker's metrics show the greylisting it met, under its egress
      const scraped = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`, { headers: { authorization: 'Bearer grey' } })).text();
      expect(scraped).toMatch(/^ev_politeness_holds_total\{kind="greylist",egress="ip:127\.0\.0\.111"\} [1-9]/m);
      expect(scraped).toMatch(/^ev_smtp_replies_total\{class="transient",provider="other",egress="ip:127\.0\.0\.111"\} [1-9]/m);
    } finally {
      for (const worker of workers) worker.kill('SIGTERM');
      await Promise.all(workers.map((w) => new Promise((resolve) => (w.exitCode !== null ? resolve(null) : w.once('exit', resolve)))));
    }
  }, 90_000);
});
