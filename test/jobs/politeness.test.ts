import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { submitQueued } from '@/lib/jobs/intake/submit';
import { grantCredits } from '@/lib/accounts/quota';
import { setup } from '../api/harness';
import { scriptArgs } from '../scripts';
import { paceAllows, startCountingSmtp, type CountingSmtp } from '../peers/counting-smtp';
import { startDnsmasq, type DnsPeer } from '../peers/dnsmasq';

// Real `scripts/worker.ts` processes on one PostgreSQL, probing a mail server that counts what a
// provider counts: connections open at once and connections opened per window, per MX host
// (127.0.0.x). Two Google MX names share Google's budget; a third host refuses its first
// connection with 421.
const GOOGLE = { ips: ['127.0.0.41', '127.0.0.42'], names: ['gmail-smtp-in.l.google.com', 'alt1.gmail-smtp-in.l.google.com'] };
const SMALL = '127.0.0.43';
const BUSY = '127.0.0.44';
const PACING = 'google=3/240,mx:mx.small.test=2/600,mx:mx.busy.test=2/300';
const BACKOFF_MS = 4_000;

let dns: DnsPeer;
let smtp: CountingSmtp;
let ctx: Awaited<ReturnType<typeof setup>>;

beforeAll(async () => {
  dns = await startDnsmasq(
    [
      ...GOOGLE.names.map((name, i) => `host-record=${name},${GOOGLE.ips[i]}`),
      ...[0, 1, 2, 3].map((d) => `mx-host=g${d}.test,${GOOGLE.names[d % 2]},10`),
      'mx-host=small.test,mx.small.test,10',
      `host-record=mx.small.test,${SMALL}`,
      'mx-host=busy.test,mx.busy.test,10',
      `host-record=mx.busy.test,${BUSY}`,
    ],
    ['test', 'google.com'],
  );
  smtp = await startCountingSmtp({
    hosts: [...GOOGLE.ips, SMALL, BUSY],
    replyDelayMs: 150,
    refuse: (host, connection) => host === BUSY && connection === 0,
  });
  ctx = await setup('postgres', { EV_CHUNK_SIZE: '10' });
  await grantCredits(ctx.database, ctx.account.id, 10_000);
});

afterAll(async () => {
  await ctx?.teardown();
  await smtp?.stop();
  await dns?.stop();
});

function startWorker(): Promise<ChildProcess> {
  const child = spawn(process.execPath, scriptArgs('scripts/worker.ts'), {
    env: {
      ...process.env,
      EV_DNS_SERVERS: dns.server,
      EV_SMTP_PORT: String(smtp.port),
      EV_ALLOW_PRIVATE_NETWORKS: 'true',
      EV_HELO_NAME: 'verifier.test',
      EV_MAIL_FROM: 'check@verifier.test',
      EV_EGRESS_POLICY: 'off',
      EV_SMTP_PACING: PACING,
      EV_DOMAIN_BACKOFF_MS: String(BACKOFF_MS),
      EV_WORKER_CONCURRENCY: '20',
      EV_LEASE_MS: '5000',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      if (out.includes('started')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`worker exited ${code}: ${out}`)));
  });
}

async function stopWorkers(workers: ChildProcess[]): Promise<void> {
  await Promise.all(
    workers.map(
      (w) =>
        new Promise((resolve) => {
          if (w.exitCode !== null) return resolve(null);
          w.once('exit', resolve);
          w.kill('SIGTERM');
        }),
    ),
  );
}

async function runJob(workerCount: number, emails: string[]): Promise<{ since: number; statuses: Record<string, number> }> {
  const workers = await Promise.all(Array.from({ length: workerCount }, startWorker));
  const since = performance.now();
  try {
    const { jobId } = await submitQueued(ctx.database, { userId: ctx.account.id, sandbox: false, emails });
    const deadline = Date.now() + 90_000;
    while ((await ctx.database.prisma.job.findUnique({ where: { id: jobId } }))!.status !== 'completed') {
      if (Date.now() > deadline) throw new Error('the job did not complete');
      await new Promise((r) => setTimeout(r, 100));
    }
    const rows = await ctx.database.prisma.$queryRawUnsafe<{ status: string; n: bigint }[]>(
      'SELECT status, COUNT(*) AS n FROM verifications WHERE job_id = $1 GROUP BY status',
      jobId,
    );
    return { since, statuses: Object.fromEntries(rows.map((r) => [r.status, Number(r.n)])) };
  } finally {
    await stopWorkers(workers);
  }
}

const opened = (hosts: string[], since: number) => smtp.connections.filter((c) => hosts.includes(c.host) && c.openedAt >= since);

describe.each([1, 3])('%i worker process(es) on one PostgreSQL', (workerCount) => {
  it('keep Google (all its MX names) and a small host within concurrency and pace, as one sender', async () => {
    const tag = `w${workerCount}`;
    const emails = [
      ...Array.from({ length: 28 }, (_, i) => `${i % 2 ? 'ok' : 'no'}${tag}${i}@g${i % 4}.test`),
      ...Array.from({ length: 12 }, (_, i) => `ok${tag}${i}@small.test`),
    ];
    const { since, statuses } = await runJob(workerCount, emails);
    expect(statuses).toEqual({ deliverable: 26, undeliverable: 14 });
    expect(opened(GOOGLE.ips, since).length).toBeGreaterThanOrEqual(28);
    expect(opened(GOOGLE.ips.slice(0, 1), since).length).toBeGreaterThan(0);
    expect(opened(GOOGLE.ips.slice(1), since).length).toBeGreaterThan(0);
    // Google: 3 at once over both MX names together, and 240 a minute = 12 in any 3 s, one late
    // start aside (paceAllows). Without the shared leases 3 workers open up to 9 at once (each
    // process its own 3).
    expect(smtp.maxConcurrent(GOOGLE.ips, since)).toBe(3);
    expect(smtp.maxOpenedWithin(GOOGLE.ips, 3_000, since)).toBeLessThanOrEqual(paceAllows(240, 3_000));
    expect(smtp.maxConcurrent([SMALL], since)).toBeLessThanOrEqual(2);
  }, 120_000);
});

describe('a 421 seen by one worker', () => {
  it('makes every worker leave the host alone for the back-off, then the job finishes', async () => {
    const emails = Array.from({ length: 30 }, (_, i) => `ok${i}@busy.test`);
    const { since, statuses } = await runJob(3, emails);
    expect(statuses).toEqual({ deliverable: 30 });
    const busy = opened([BUSY], since).sort((a, b) => a.openedAt - b.openedAt);
    const refusal = busy.find((c) => c.refused)!;
    expect(refusal).toBeDefined();
    // conversations already open when the 421 came may finish; nothing new starts until the back-off ends
    const heard = refusal.closedAt! + 200;
    const during = busy.filter((c) => c.openedAt > heard && c.openedAt < refusal.openedAt + BACKOFF_MS - 200);
    expect(during).toEqual([]);
    expect(busy.filter((c) => c.openedAt >= refusal.openedAt + BACKOFF_MS - 200).length).toBeGreaterThanOrEqual(
      29 - busy.filter((c) => c.openedAt <= heard).length,
    );
    expect(smtp.maxConcurrent([BUSY], since)).toBeLessThanOrEqual(2);
  }, 120_000);
});
