import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pauseAt } from '@/lib/failpoints/failpoints';
import { submitQueued } from '@/lib/jobs/intake/submit';
import { JobWorker, MAX_CHUNKS_IN_HAND } from '@/lib/jobs/worker/worker';
import { grantCredits } from '@/lib/accounts/quota';
import { sandboxVerifier } from '@/lib/verifier/sandbox';
import type { Verifier } from '@/lib/verifier/types';
import { setup, until } from '../api/harness';

// A production chunk waits for its slowest mail system; the worker takes a second chunk beside it
// once every address of the first has started, up to MAX_CHUNKS_IN_HAND.
describe('a worker holding production chunks', () => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  beforeAll(async () => {
    ctx = await setup('postgres', { EV_CHUNK_SIZE: '5' });
    await grantCredits(ctx.database, ctx.account.id, 1000);
  });
  afterAll(() => ctx.teardown());

  it('starts the next chunk while one slow address holds the first, a few chunks at most', async () => {
    const asking = new Set<string>();
    const askingWhenStarted = new Map<string, string[]>();
    let mostSlowAtOnce = 0;
    let open = 0;
    let mostOpenChunks = 0;
    const openByChunk = new Map<number, number>();
    const isSlow = (email: string) => Number(/u(\d+)@/.exec(email)![1]) % 5 === 0;
    const slow: Verifier = {
      async verify(email) {
        const chunkNo = Math.floor(Number(/u(\d+)@/.exec(email)![1]) / 5);
        askingWhenStarted.set(email, [...asking]);
        asking.add(email);
        mostSlowAtOnce = Math.max(mostSlowAtOnce, [...asking].filter(isSlow).length);
        openByChunk.set(chunkNo, (openByChunk.get(chunkNo) ?? 0) + 1);
        mostOpenChunks = Math.max(mostOpenChunks, [...openByChunk.values()].filter((n) => n > 0).length);
        open++;
        // the first address of every chunk is a slow mail system
        await new Promise((r) => setTimeout(r, isSlow(email) ? 400 : 20));
        asking.delete(email);
        open--;
        openByChunk.set(chunkNo, openByChunk.get(chunkNo)! - 1);
        return sandboxVerifier.verify(email);
      },
    };
    const { jobId } = await submitQueued(ctx.database, {
      userId: ctx.account.id,
      sandbox: false,
      emails: Array.from({ length: 30 }, (_, i) => `u${i}@example.com`),
    });
    const worker = new JobWorker(ctx.database, { concurrency: 10, leaseMs: 5000, pollMs: 20, verifierFor: () => slow });
    worker.start();
    try {
      while ((await ctx.database.prisma.job.findUnique({ where: { id: jobId } }))!.status !== 'completed') await new Promise((r) => setTimeout(r, 20));
    } finally {
      await worker.stop();
    }
    // chunk 2 (u5-u9) began while u0 of chunk 1 was still being asked
    expect(askingWhenStarted.get('u5@example.com')).toContain('u0@example.com');
    expect(mostOpenChunks).toBe(MAX_CHUNKS_IN_HAND);
    // six chunks, each held 400 ms by its slow address: one at a time, no two slow addresses would overlap
    expect(mostSlowAtOnce).toBeGreaterThanOrEqual(2);
    expect(open).toBe(0);
  });

  it('verifies the next sandbox chunk while one is finishing, and holds two sandbox chunks at most', async () => {
    const asked = new Set<number>();
    const counting: Verifier = {
      verify(email, context) {
        asked.add(Number(/s(\d+)@/.exec(email)![1]));
        return sandboxVerifier.verify(email, context);
      },
    };
    const { jobId } = await submitQueued(ctx.database, {
      userId: ctx.account.id,
      sandbox: true,
      emails: Array.from({ length: 15 }, (_, i) => `s${i}@example.com`),
    });
    const stored = async (from: number, to: number) => ctx.database.prisma.verification.count({ where: { jobId, idx: { gte: from, lt: to } } });
    // the first chunk's completion is held open (its job row locked, so the second's waits behind it)
    const pause = pauseAt('chunk.finishing');
    const worker = new JobWorker(ctx.database, { concurrency: 10, leaseMs: 5000, pollMs: 20, verifierFor: () => counting });
    worker.start();
    try {
      await pause.reached;
      // the second chunk is claimed, verified and saved meanwhile ...
      expect(
        await until(
          () => stored(5, 10),
          (n) => n === 5,
          3000,
        ),
      ).toBe(5);
      // ... but not a third while the first has not ended
      await new Promise((r) => setTimeout(r, 300));
      expect([...asked].filter((i) => i >= 10)).toEqual([]);
      pause.resume();
      expect(
        await until(
          async () => (await ctx.database.prisma.job.findUniqueOrThrow({ where: { id: jobId } })).status,
          (status) => status === 'completed',
        ),
      ).toBe('completed');
    } finally {
      pause.resume();
      await worker.stop();
    }
    expect(await stored(0, 15)).toBe(15);
    expect(asked.size).toBe(15);
  });
});
