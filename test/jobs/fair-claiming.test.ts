import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureAccount } from '@/lib/accounts/users';
import { claimChunk } from '@/lib/jobs/queue';
import { completeChunkAndFinish } from '@/lib/jobs/worker/lifecycle';
import { submitQueued } from '@/lib/jobs/intake/submit';
import { DIALECTS } from '../databases';
import { setup } from '../api/harness';

const CHUNK = 100;

describe.each(DIALECTS)('fair claiming across accounts (%s)', (dialect) => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  beforeAll(async () => {
    ctx = await setup(dialect, { EV_CHUNK_SIZE: String(CHUNK) });
  });
  afterAll(() => ctx.teardown());

  const emails = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `p${i}@${tag}.test`);

  it('an account with many large jobs does not starve one with a small job', async () => {
    const big = ctx.account;
    const small = await ensureAccount(ctx.database, `small-${Math.random().toString(36).slice(2, 8)}@example.com`);
    const owner = new Map<string, string>();
    // Five jobs of 20 chunks for one account, queued first...
    for (let j = 0; j < 5; j++) {
      const { jobId } = await submitQueued(ctx.database, { userId: big.id, sandbox: true, emails: emails(20 * CHUNK, `big${j}`) });
      owner.set(jobId, 'big');
    }
    // ...then one job of 10 chunks for another account.
    const { jobId: smallJob } = await submitQueued(ctx.database, { userId: small.id, sandbox: true, emails: emails(10 * CHUNK, 'small') });
    owner.set(smallJob, 'small');

    const order: string[] = [];
    const bigJobsSeen = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const chunk = await claimChunk(ctx.database, 'w1', 60_000);
      expect(chunk).not.toBeNull();
      order.push(owner.get(chunk!.jobId)!);
      if (owner.get(chunk!.jobId) === 'big') bigJobsSeen.add(chunk!.jobId);
      await completeChunkAndFinish(ctx.database, chunk!);
    }
    // Per job, the small account would get one claim in six; per account it gets every other one.
    expect(order.filter((o) => o === 'small')).toHaveLength(10);
    for (let i = 0; i < 20; i += 2) expect(new Set(order.slice(i, i + 2))).toEqual(new Set(['big', 'small']));
    // Within the big account its jobs take turns rather than one job running first.
    expect(bigJobsSeen.size).toBe(5);
  });

  it('chunks held by other workers count: a second worker serves the other account', async () => {
    const a = await ensureAccount(ctx.database, `a-${Math.random().toString(36).slice(2, 8)}@example.com`);
    const b = await ensureAccount(ctx.database, `b-${Math.random().toString(36).slice(2, 8)}@example.com`);
    const { jobId: jobA } = await submitQueued(ctx.database, { userId: a.id, sandbox: true, emails: emails(5 * CHUNK, 'held-a') });
    const { jobId: jobB } = await submitQueued(ctx.database, { userId: b.id, sandbox: true, emails: emails(5 * CHUNK, 'held-b') });
    // The first test's accounts have been served already, so these two new ones come first.
    const first = await claimChunk(ctx.database, 'w1', 60_000);
    const second = await claimChunk(ctx.database, 'w2', 60_000);
    expect(first && second).toBeTruthy();
    expect(new Set([first!.jobId, second!.jobId])).toEqual(new Set([jobA, jobB]));
  });
  it('a small job of another account starts within two claims of a 100-chunk job under way', async () => {
    const huge = await ensureAccount(ctx.database, `huge-${Math.random().toString(36).slice(2, 8)}@example.com`);
    const late = await ensureAccount(ctx.database, `late-${Math.random().toString(36).slice(2, 8)}@example.com`);
    const { jobId: hugeJob } = await submitQueued(ctx.database, { userId: huge.id, sandbox: true, emails: emails(120 * CHUNK, 'huge') });
    // earlier tests' leftovers are served first: take chunks until the huge job has had 20 of its own
    let served = 0;
    while (served < 20) {
      const chunk = await claimChunk(ctx.database, 'w1', 60_000);
      expect(chunk).not.toBeNull();
      if (chunk!.jobId === hugeJob) served++;
      await completeChunkAndFinish(ctx.database, chunk!);
    }
    const { jobId: smallJob } = await submitQueued(ctx.database, { userId: late.id, sandbox: true, emails: emails(50, 'late') });
    const next = [await claimChunk(ctx.database, 'w1', 60_000), await claimChunk(ctx.database, 'w1', 60_000)];
    expect(next.map((c) => c?.jobId)).toContain(smallJob);
  });
});
