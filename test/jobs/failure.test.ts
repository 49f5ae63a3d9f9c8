import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as download from '@/app/v1/verify/bulk/download/[jobId]/route';
import * as status from '@/app/v1/verify/bulk/status/[jobId]/route';
import * as webhooks from '@/app/v1/webhooks/route';
import { q } from '@/lib/db/sql';
import { saveChunkResults } from '@/lib/jobs/queue/ledger';
import { claimChunk } from '@/lib/jobs/queue';
import { jobResultRow } from '../api/stored-verdict';
import { submitQueued } from '@/lib/jobs/intake/submit';
import { JobWorker } from '@/lib/jobs/worker/worker';
import { accountUsage, grantCredits } from '@/lib/accounts/quota';
import { sandboxVerifier } from '@/lib/verifier/sandbox';
import type { Verifier } from '@/lib/verifier/types';
import { DIALECTS } from '../databases';
import { assertWebhookPayload } from '../api/contract';
import { call, setup, until } from '../api/harness';

const emails = (tag: string, n = 12) => Array.from({ length: n }, (_, i) => `valid${i}@${tag}.test`);

describe.each(DIALECTS)('jobs that break (%s)', (dialect) => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  beforeAll(async () => {
    ctx = await setup(dialect, { EV_ALLOW_PRIVATE_NETWORKS: 'true' });
  });
  afterAll(() => ctx.teardown());

  const jobRow = (jobId: string) => ctx.database.prisma.job.findUniqueOrThrow({ where: { id: jobId } });
  const worker = (verifier: Verifier, extra: { concurrency?: number } = {}) =>
    new JobWorker(ctx.database, {
      concurrency: extra.concurrency ?? 4,
      leaseMs: 30_000,
      pollMs: 10,
      maxAttempts: 3,
      errorRetryMs: 0,
      verifierFor: () => verifier,
    });

  it('asks again for an address whose verification threw, then records it as unknown and completes the job', async () => {
    const calls = new Map<string, number>();
    const verifier: Verifier = {
      async verify(email) {
        calls.set(email, (calls.get(email) ?? 0) + 1);
        if (email.startsWith('valid3@')) throw new Error('verifier bug');
        return sandboxVerifier.verify(email);
      },
    };
    const list = emails('throws');
    const { jobId } = await submitQueued(ctx.database, { userId: ctx.account.id, sandbox: true, emails: list });
    const w = worker(verifier);
    w.start();
    try {
      expect(
        (
          await until(
            () => jobRow(jobId),
            (j) => j.status === 'completed',
          )
        ).status,
      ).toBe('completed');
    } finally {
      await w.stop();
    }
    expect(calls.get(list[3]!)).toBe(3); // maxAttempts
    for (const email of list.filter((_, i) => i !== 3)) expect(calls.get(email)).toBe(1);
    const res = await call(status.GET, { key: ctx.key, params: { jobId } });
    expect(res.json.data.summary).toMatchObject({ total: 12, unknown: 1 });
    const broken = res.json.data.results.find((r: { email: string }) => r.email === list[3]);
    expect(broken).toMatchObject({ status: 'unknown', reason: 'unexpected_error', valid: true, deliverable: false });
  });

  it('fails a job whose chunk no worker could finish: bulk.failed, the reservation refunded, no download', async () => {
    await grantCredits(ctx.database, ctx.account.id, 50);
    const before = await accountUsage(ctx.database, ctx.account.id);
    const hook = await call(webhooks.POST, { key: ctx.key, sandbox: false, body: { url: 'http://127.0.0.1:49999/hook', events: ['bulk.failed'] } });
    expect(hook.status).toBe(201);
    const { jobId } = await submitQueued(ctx.database, { userId: ctx.account.id, sandbox: false, emails: emails('dies') });
    expect((await accountUsage(ctx.database, ctx.account.id)).freeRemainingToday).toBe(before.freeRemainingToday - 12);
    // Six workers in turn claim the chunk and die (their leases run out unrenewed)...
    for (let i = 0; i < 6; i++) {
      expect(await claimChunk(ctx.database, `dead-${i}`, 1)).not.toBeNull();
      await new Promise((r) => setTimeout(r, 5)); // the 1 ms lease runs out on the database's clock
    }
    // ...so the next claim is the seventh, past twice maxAttempts: the job is given up.
    let verified = 0;
    const w = worker({
      verify: async (email) => {
        verified++;
        return sandboxVerifier.verify(email);
      },
    });
    w.start();
    try {
      expect(
        (
          await until(
            () => jobRow(jobId),
            (j) => j.status !== 'queued',
          )
        ).status,
      ).toBe('failed');
    } finally {
      await w.stop();
    }
    expect(verified).toBe(0);

    const res = await call(status.GET, { key: ctx.key, sandbox: false, params: { jobId } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ success: true, status: 'failed', progress: 0, processed_emails: 0, total_emails: 12 });
    expect(res.json.error).toMatch(/could not be verified in 6 attempts/);
    expect(res.json).not.toHaveProperty('data');
    const csv = await call(download.GET, { key: ctx.key, sandbox: false, params: { jobId } });
    expect(csv.status).toBe(409);
    expect(csv.json.error).toBe('job_not_completed');

    expect(await accountUsage(ctx.database, ctx.account.id)).toMatchObject({ freeRemainingToday: before.freeRemainingToday, credits: before.credits });
    const [delivery] = await ctx.database.prisma.webhookDelivery.findMany({ where: { webhookId: hook.json.id } });
    const event = JSON.parse(delivery!.payload);
    assertWebhookPayload(event);
    expect(event).toMatchObject({ type: 'bulk.failed', sandbox: false, data: { job_id: jobId, status: 'failed', total_emails: 12, summary: { total: 12 } } });
    expect(event.data.error).toBe(res.json.error);
  });

  it('does not fail a job whose workers die after storing results each time: only claims that stored nothing count', async () => {
    const list = emails('progress');
    const { jobId } = await submitQueued(ctx.database, { userId: ctx.account.id, sandbox: true, emails: list });
    // Eight workers in turn claim the chunk, store one result each and die (past the six claims
    // that fail a job whose claims store nothing)
    for (let i = 0; i < 8; i++) {
      const chunk = await claimChunk(ctx.database, `dies-after-saving-${i}`, 1);
      expect(chunk).not.toBeNull();
      expect(chunk!.stalledClaims).toBe(1);
      const { verdict } = await sandboxVerifier.verify(list[i]!);
      const row = jobResultRow(verdict, { userId: ctx.account.id, jobId, idx: i });
      expect(await saveChunkResults(ctx.database, chunk!, [row])).toBe(true);
      await new Promise((r) => setTimeout(r, 5)); // the 1 ms lease runs out on the database's clock
    }
    let verified = 0;
    const w = worker({
      verify: async (email) => {
        verified++;
        return sandboxVerifier.verify(email);
      },
    });
    w.start();
    try {
      expect(
        (
          await until(
            () => jobRow(jobId),
            (j) => j.status === 'completed' || j.status === 'failed',
          )
        ).status,
      ).toBe('completed');
    } finally {
      await w.stop();
    }
    expect(verified).toBe(list.length - 8);
  });

  it('does not count a chunk handed back by a stopping worker as an attempt', async () => {
    let started!: () => void;
    const first = new Promise<void>((r) => (started = r));
    const slow: Verifier = {
      async verify(email) {
        started();
        await new Promise((r) => setTimeout(r, 30));
        return sandboxVerifier.verify(email);
      },
    };
    const { jobId } = await submitQueued(ctx.database, { userId: ctx.account.id, sandbox: false, emails: emails('stops') });
    const w = worker(slow, { concurrency: 1 });
    w.start();
    await first;
    await w.stop();
    const [chunk] = await ctx.database.prisma.$queryRawUnsafe<{ state: string; attempts: number | bigint }[]>(
      q(dialect, 'SELECT state, attempts FROM job_chunks WHERE job_id = ?'),
      jobId,
    );
    expect({ state: chunk!.state, attempts: Number(chunk!.attempts) }).toEqual({ state: 'pending', attempts: 0 });
    expect((await jobRow(jobId)).status).toBe('processing');
  });
});
