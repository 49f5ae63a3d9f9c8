import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as metricsRoute from '@/app/metrics/route';
import * as bulk from '@/app/v1/verify/bulk/route';
import { JobWorker } from '@/lib/jobs/worker/worker';
import { serveMetrics } from '@/lib/metrics/server';
import { verifierFor } from '@/lib/checks/verifiers';
import { dispatchDueDeliveries } from '@/lib/webhooks/dispatch';
import { createWebhook } from '@/lib/webhooks/manage';
import { DIALECTS } from '../databases';
import { call, setup, until } from './harness';

const scrape = (token?: string) => call(metricsRoute.GET, { path: '/metrics', key: token ?? null, sandbox: false, contract: false });

/** The value of one sample line (`name{labels} value`), or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const line = text
    .split('\n')
    .find((l) => (l.startsWith(`${name}{`) || l.startsWith(`${name} `) ? Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)) : false));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('GET /metrics without EV_METRICS_TOKEN', () => {
  it('is not there (404), with or without a token', async () => {
    delete process.env.EV_METRICS_TOKEN;
    expect((await scrape()).status).toBe(404);
    expect((await scrape('anything')).status).toBe(404);
  });
});

describe.each(DIALECTS)('GET /metrics on %s', (dialect) => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  let worker: JobWorker;
  let receiver: Server;

  beforeAll(async () => {
    ctx = await setup(dialect, { EV_METRICS_TOKEN: 'metrics-secret', EV_SANDBOX_TIMEOUT_MS: '50', EV_CHUNK_SIZE: '5', EV_ALLOW_PRIVATE_NETWORKS: 'true' });
    worker = new JobWorker(ctx.database, { concurrency: 4, leaseMs: 5000, pollMs: 20, verifierFor });
    worker.start();
    receiver = createServer((request, response) => void request.resume().on('end', () => response.end('ok')));
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    await createWebhook(ctx.database, ctx.account.id, { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook` });
  });
  afterAll(async () => {
    await worker.stop();
    await ctx.teardown();
    await new Promise((resolve) => receiver.close(resolve));
  });

  it('answers 401 without the token, or with another one', async () => {
    const none = await scrape();
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    expect(none.json.error).toBe('authentication_error');
    expect((await scrape('metrics-secre')).status).toBe(401);
    expect((await scrape(ctx.key)).status).toBe(401); // an API key is not the metrics token
  });

  it('shows jobs, chunks, verdicts and the process after some work', async () => {
    const emails = Array.from({ length: 24 }, (_, i) => `${i % 2 ? 'valid' : 'invalid'}${i}@x.com`);
    const submitted = await call(bulk.POST, { key: ctx.key, body: { emails } });
    expect(submitted.status).toBe(200);
    const jobId = submitted.json.job_id as string;
    await until(
      () => ctx.database.prisma.job.findUnique({ where: { id: jobId } }),
      (job) => job?.status === 'completed',
    );
    const before = sample((await scrape('metrics-secret')).text, 'ev_webhook_deliveries_total', { outcome: 'delivered' }) ?? 0;
    expect(await dispatchDueDeliveries(ctx.database)).toBe(1); // bulk.completed
    await new Promise((r) => setTimeout(r, 1100)); // the database gauges are shared for a second
    const answer = await scrape('metrics-secret');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = answer.text;
    expect(sample(text, 'ev_jobs', { status: 'completed' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'ev_queue_age_seconds')).toBe(0);
    expect(sample(text, 'ev_verifications_total', { verdict: 'deliverable', mode: 'sandbox' })).toBeGreaterThanOrEqual(12);
    expect(sample(text, 'ev_verifications_total', { verdict: 'undeliverable', mode: 'sandbox' })).toBeGreaterThanOrEqual(12);
    expect(sample(text, 'ev_webhook_deliveries_total', { outcome: 'delivered' })).toBe(before + 1);
    for (const family of ['ev_job_chunks', 'ev_smtp_replies_total', 'ev_politeness_wait_seconds', 'ev_politeness_holds_total']) {
      expect(text).toContain(`# TYPE ${family} `);
    }
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(10_000_000);
    expect(sample(text, 'nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
  });

  it('counts chunks of a queued job by state and its wait as the queue age', async () => {
    await worker.stop();
    const submitted = await call(bulk.POST, { key: ctx.key, body: { emails: Array.from({ length: 15 }, (_, i) => `valid-q${i}@x.com`) } });
    await new Promise((r) => setTimeout(r, 1100));
    const text = (await scrape('metrics-secret')).text;
    expect(sample(text, 'ev_jobs', { status: 'queued' })).toBe(1);
    expect(sample(text, 'ev_job_chunks', { state: 'pending' })).toBe(3);
    expect(sample(text, 'ev_queue_age_seconds')).toBeGreaterThanOrEqual(1);
    worker.start();
    await until(
      () => ctx.database.prisma.job.findUnique({ where: { id: submitted.json.job_id } }),
      (job) => job?.status === 'completed',
    );
  });
});

describe("a worker's metrics port", () => {
  it('answers the same as the web server: 404 off, 401 without the token, the text with it', async () => {
    const server = await serveMetrics(0, '127.0.0.1');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
    try {
      delete process.env.EV_METRICS_TOKEN;
      expect((await fetch(url)).status).toBe(404);
      process.env.EV_METRICS_TOKEN = 'worker-secret';
      expect((await fetch(url)).status).toBe(401);
      expect((await fetch(url, { headers: { authorization: 'Bearer nope' } })).status).toBe(401);
      const ok = await fetch(url, { headers: { authorization: 'Bearer worker-secret' } });
      expect(ok.status).toBe(200);
      expect(await ok.text()).toContain('# TYPE process_resident_memory_bytes gauge');
      expect((await fetch(url.replace('/metrics', '/other'), { headers: { authorization: 'Bearer worker-secret' } })).status).toBe(404);
    } finally {
      delete process.env.EV_METRICS_TOKEN;
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
