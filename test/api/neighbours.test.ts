import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as bulk from '@/app/v1/verify/bulk/route';
import * as bulkJob from '@/app/v1/verify/bulk/[jobId]/route';
import * as status from '@/app/v1/verify/bulk/status/[jobId]/route';
import * as download from '@/app/v1/verify/bulk/download/[jobId]/route';
import * as webhooks from '@/app/v1/webhooks/route';
import * as webhookTest from '@/app/v1/webhooks/[id]/test/route';
import * as deliveries from '@/app/v1/webhooks/[id]/deliveries/route';
import * as replay from '@/app/v1/webhooks/[id]/deliveries/[deliveryId]/replay/route';
import { selectRows } from '@/lib/db/sql';
import { JobWorker } from '@/lib/jobs/worker/worker';
import { sandboxVerifier } from '@/lib/verifier/sandbox';
import { saveResults } from '@/lib/results/rows';
import { DIALECTS } from '../databases';
import { call, setup, until } from './harness';
import { jobResultRow, storedVerdict } from './stored-verdict';

/** Issue 20: one account's work stays its own (modes apart, progress without scanning, bounded paging). */
describe.each(DIALECTS)('no account or mode reaches into another (%s)', (dialect) => {
  let ctx: Awaited<ReturnType<typeof setup>>;

  beforeAll(async () => {
    ctx = await setup(dialect, {
      EV_PRODUCTION_ENGINE: 'sandbox',
      EV_ALLOW_PLACEHOLDER_IDENTITY: 'true',
      EV_CHUNK_SIZE: '4',
      EV_ALLOW_PRIVATE_NETWORKS: 'true',
      EV_EMBEDDED_WORKER: 'false',
    });
  });
  afterAll(() => ctx.teardown());

  it('answers 404 to the other mode for status, download and cancel, both ways', async () => {
    const sandboxJob = (await call(bulk.POST, { key: ctx.key, body: { emails: ['valid@x.com'] } })).json.job_id;
    const productionJob = (await call(bulk.POST, { key: ctx.key, sandbox: false, body: { emails: ['valid@x.com'] } })).json.job_id;
    expect(sandboxJob).toMatch(/^job_/);
    expect(productionJob).toMatch(/^job_/);
    for (const [jobId, sandbox] of [
      [sandboxJob, false],
      [productionJob, true],
    ] as const) {
      for (const handler of [status.GET, download.GET]) {
        const res = await call(handler, { key: ctx.key, sandbox, params: { jobId } });
        expect(res.status).toBe(404);
        expect(res.json.error).toBe('not_found');
      }
      expect((await call(bulkJob.DELETE, { method: 'DELETE', key: ctx.key, sandbox, params: { jobId } })).status).toBe(404);
      // its own mode still sees it
      expect((await call(status.GET, { key: ctx.key, sandbox: !sandbox, params: { jobId } })).status).toBe(200);
    }
    // a download link cannot send X-EV-Sandbox: a production caller names the sandbox mode in the query
    // (as the dashboard's links do); a sandbox caller cannot name its way out of sandbox
    const viaLink = await call(download.GET, {
      key: ctx.key,
      sandbox: false,
      path: `/v1/verify/bulk/download/${sandboxJob}?sandbox=true`,
      params: { jobId: sandboxJob },
    });
    expect(viaLink.status).toBe(200);
    const outOfSandbox = await call(download.GET, {
      key: ctx.key,
      sandbox: true,
      path: `/v1/verify/bulk/download/${productionJob}?sandbox=false`,
      params: { jobId: productionJob },
    });
    expect(outOfSandbox.status).toBe(404);
  });

  it("lists and replays only the deliveries of the caller's mode", async () => {
    const hook = (await call(webhooks.POST, { key: ctx.key, body: { url: 'http://127.0.0.1:59999/hook' } })).json;
    await call(webhookTest.POST, { key: ctx.key, sandbox: true, params: { id: hook.id } });
    await call(webhookTest.POST, { key: ctx.key, sandbox: false, params: { id: hook.id } });
    const asSandbox = (await call(deliveries.GET, { key: ctx.key, sandbox: true, params: { id: hook.id } })).json.data;
    const asProduction = (await call(deliveries.GET, { key: ctx.key, sandbox: false, params: { id: hook.id } })).json.data;
    expect(asSandbox).toHaveLength(1);
    expect(asProduction).toHaveLength(1);
    expect(asSandbox[0].id).not.toBe(asProduction[0].id);
    const crossed = await call(replay.POST, { key: ctx.key, sandbox: true, params: { id: hook.id, deliveryId: asProduction[0].id } });
    expect(crossed.status).toBe(404);
  });

  it('trims a header no row fills, so a download stays the size of its upload', async () => {
    const columns = Array.from({ length: 1000 }, (_, i) => `c${i}`);
    const bare = await call(bulk.POST, { key: ctx.key, body: { emails: ['valid1@x.com', 'valid2@x.com'], columns } });
    const narrow = await call(bulk.POST, {
      key: ctx.key,
      body: {
        rows: [
          ['Ann', 'valid3@x.com'],
          ['Bob', 'valid4@x.com', 'extra'],
        ],
        columns,
        email_column: 1,
      },
    });
    const header = async (jobId: string) => (await call(download.GET, { key: ctx.key, params: { jobId } })).text.split('\r\n')[0];
    expect(await header(bare.json.job_id)).toBe(
      'email,valid,deliverable,risk_level,reason,status,score,provider,disposable,role,free,catch_all,did_you_mean,cached,sub_reason,mailbox_provider',
    );
    const lines = (await call(download.GET, { key: ctx.key, params: { jobId: narrow.json.job_id } })).text.split('\r\n');
    expect(lines[0]).toMatch(/^c0,c1,c2,email,/);
    expect(lines[1]).toMatch(/^Ann,valid3@x.com,,valid3@x.com,/);
  });

  it('refuses a status offset past the documented bound with a 400', async () => {
    const jobId = (await call(bulk.POST, { key: ctx.key, body: { emails: ['valid@x.com'] } })).json.job_id;
    const res = await call(status.GET, { key: ctx.key, path: `/v1/verify/bulk/status/${jobId}?offset=10001`, params: { jobId } });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe('invalid_request');
    expect((await call(status.GET, { key: ctx.key, path: `/v1/verify/bulk/status/${jobId}?offset=10000`, params: { jobId } })).status).toBe(200);
  });

  it('counts progress as results are stored, each duplicate once, a result saved twice once', async () => {
    // 30 rows over 10 mailboxes: each first row followed by two spellings of it later in the list
    const firsts = Array.from({ length: 10 }, (_, i) => `valid${i}@example.com`);
    const emails = [...firsts, ...firsts.map((e) => e.toUpperCase()), ...firsts.map((e) => ` ${e}`)];
    const queued = await call(bulk.POST, { key: ctx.key, body: { emails } });
    expect(queued.json).toMatchObject({ status: 'queued', total_emails: 30, duplicate_emails: 20 });
    const jobId = queued.json.job_id;
    const poll = async () => (await call(status.GET, { key: ctx.key, params: { jobId } })).json;
    expect((await poll()).processed_emails).toBe(0);
    // results of rows 0-3 as a worker stores them; their 8 later copies count with them
    const row = (idx: number) => jobResultRow(storedVerdict(firsts[idx]!), { userId: ctx.account.id, jobId, idx });
    await saveResults(ctx.database, [0, 1, 2, 3].map(row));
    expect((await poll()).processed_emails).toBe(12);
    await saveResults(ctx.database, [2, 3, 4].map(row));
    expect((await poll()).processed_emails).toBe(15);
    const [direct] = await selectRows<{ n: number | bigint }>(
      ctx.database,
      `SELECT COUNT(*) AS n FROM job_items i WHERE i.job_id = ? AND EXISTS (SELECT 1 FROM verifications v WHERE v.job_id = i.job_id AND v.idx = COALESCE(i.duplicate_of, i.idx))`,
      [jobId],
    );
    expect(Number(direct!.n)).toBe(15);

    const worker = new JobWorker(ctx.database, { concurrency: 4, leaseMs: 5000, pollMs: 20, verifierFor: () => sandboxVerifier });
    worker.start();
    try {
      const done = await until(poll, (s) => s.status === 'completed');
      expect(done).toMatchObject({ status: 'completed', progress: 100, processed_emails: 30 });
      expect(done.data.results_total).toBe(10);
      const listed = (await call(bulk.GET, { key: ctx.key })).json.data.find((j: any) => j.job_id === jobId);
      expect(listed).toMatchObject({ processed_emails: 30, progress: 100 });
      const progress = await ctx.database.prisma.jobProgress.findUniqueOrThrow({ where: { jobId } });
      expect(progress.processed).toBe(30);
    } finally {
      await worker.stop();
    }
  });
});
