import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../test/databases';
import { setup } from '../test/api/harness';
import { listHistory, recordSingle } from './history';
import { sandboxVerdict } from './verifier/sandbox';

describe.each(DIALECTS)('recordSingle (%s)', (dialect) => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  beforeAll(async () => {
    ctx = await setup(dialect);
  });
  afterAll(async () => {
    await ctx.teardown();
  });

  it('stores every row of a concurrent burst before any caller goes on, in call order', async () => {
    const emails = Array.from({ length: 25 }, (_, i) => `burst${i}@example.com`);
    let storedWhenFirstResolved = -1;
    await Promise.all(emails.map(async (email, i) => {
      await recordSingle(ctx.database, ctx.account.id, sandboxVerdict(email), true, false);
      if (i === 0) storedWhenFirstResolved = (await listHistory(ctx.database, { userId: ctx.account.id, sandbox: true, limit: 100 })).data.length;
    }));
    expect(storedWhenFirstResolved).toBe(emails.length);
    const { data } = await listHistory(ctx.database, { userId: ctx.account.id, sandbox: true, limit: 100 });
    expect(data.map((row) => row.email)).toEqual([...emails].reverse());
  });

  it('keeps batches of different turns apart and each complete', async () => {
    await recordSingle(ctx.database, ctx.account.id, sandboxVerdict('alone@example.com'), true, false);
    const { data } = await listHistory(ctx.database, { userId: ctx.account.id, sandbox: true, limit: 1 });
    expect(data[0]!.email).toBe('alone@example.com');
  });

  it('fails every caller of a batch whose insert fails, and the next batch works', async () => {
    await ctx.database.prisma.$executeRawUnsafe('ALTER TABLE verifications RENAME TO verifications_away');
    let results: PromiseSettledResult<void>[];
    try {
      results = await Promise.allSettled([
        recordSingle(ctx.database, ctx.account.id, sandboxVerdict('lost1@example.com'), true, false),
        recordSingle(ctx.database, ctx.account.id, sandboxVerdict('lost2@example.com'), true, false),
      ]);
    } finally {
      await ctx.database.prisma.$executeRawUnsafe('ALTER TABLE verifications_away RENAME TO verifications');
    }
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    await recordSingle(ctx.database, ctx.account.id, sandboxVerdict('after@example.com'), true, false);
    const { data } = await listHistory(ctx.database, { userId: ctx.account.id, sandbox: true, limit: 1 });
    expect(data[0]!.email).toBe('after@example.com');
  });
});
