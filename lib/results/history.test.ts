import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../test/databases';
import { setup } from '../../test/api/harness';
import { cacheLookupSql } from '../db/queries/results';
import { q } from '../db/sql';
import { cachedVerdict, listHistory, recordSingle } from './history';
import { sandboxVerdict } from '../verifier/sandbox';

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
    await Promise.all(
      emails.map(async (email, i) => {
        await recordSingle(ctx.database, ctx.account.id, sandboxVerdict(email), true, false);
        if (i === 0) storedWhenFirstResolved = (await listHistory(ctx.database, { userId: ctx.account.id, sandbox: true, limit: 100 })).data.length;
      }),
    );
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

  it('finds production rows by address through the partial index, which sandbox rows stay out of', async () => {
    if (dialect === 'sqlite') {
      const plan = ctx.database.bulk!.prepare(`EXPLAIN QUERY PLAN ${cacheLookupSql(ctx.database)}`).all('u', 'e', 0, 0) as { detail: string }[];
      expect(plan.map((p) => p.detail).join(' ')).toContain('USING INDEX verifications_user_id_email_idx');
    } else {
      const [index] = await ctx.database.prisma.$queryRawUnsafe<{ indexdef: string }[]>(
        `SELECT indexdef FROM pg_indexes WHERE indexname = 'verifications_user_id_email_idx'`,
      );
      expect(index!.indexdef).toMatch(/WHERE \(sandbox = false\)/);
      expect(cacheLookupSql(ctx.database)).toContain('sandbox = false');
    }
    // history search by address works in both modes (sandbox rows by scanning the user's rows)
    await recordSingle(ctx.database, ctx.account.id, sandboxVerdict('findme@example.com'), true, false);
    await recordSingle(ctx.database, ctx.account.id, { ...sandboxVerdict('findme@example.com') }, false, false);
    for (const sandbox of [true, false]) {
      const { data } = await listHistory(ctx.database, { userId: ctx.account.id, sandbox, limit: 10, email: 'findme@example.com' });
      expect(data.map((row) => [row.email, row.sandbox])).toEqual([['findme@example.com', sandbox]]);
    }
    const [cached] = await ctx.database.prisma.$queryRawUnsafe<unknown[]>(
      q(dialect, cacheLookupSql(ctx.database)),
      ctx.account.id,
      'findme@example.com',
      false,
      0,
    );
    expect(cached).toMatchObject({ email: 'findme@example.com' });
    // one mailbox whatever the ASCII case of its spelling: the search and the cache find it, and the
    // cached verdict answers for the address as asked
    const { data } = await listHistory(ctx.database, { userId: ctx.account.id, sandbox: false, limit: 10, email: 'FindMe@Example.COM' });
    expect(data.map((row) => row.email)).toEqual(['findme@example.com']);
    const verdict = await cachedVerdict(ctx.database, ctx.account.id, 'FindMe@Example.COM', 0);
    expect(verdict).toMatchObject({ email: 'FindMe@Example.COM', status: sandboxVerdict('findme@example.com').status });
    expect(await cachedVerdict(ctx.database, ctx.account.id, 'findme2@example.com', 0)).toBeNull();
  });

  it('stores no evidence and no normalized_email the address already says, and the cache gives the verdict back whole', async () => {
    const plain = sandboxVerdict('restore@example.com');
    const evidence = {
      mx_host: 'mx.example.com',
      smtp_code: 250,
      smtp_enhanced_code: '2.1.5',
      smtp_message: 'OK',
      smtp_failure: null,
      attempts: 1,
      tls: true,
      dns_failure: null,
      control_code: 550,
      control_enhanced_code: '5.1.1',
      control_message: 'no such user',
      postmaster_code: null,
      postmaster_message: null,
    };
    const spelled = { ...sandboxVerdict('Restore.Me@BÜCHER.example'), evidence };
    expect(plain).toMatchObject({ evidence: null, normalized_email: 'restore@example.com' });
    expect(spelled.normalized_email).toBe('Restore.Me@bücher.example');
    await recordSingle(ctx.database, ctx.account.id, plain, false, false);
    await recordSingle(ctx.database, ctx.account.id, spelled, false, false);
    const stored = await ctx.database.prisma.$queryRawUnsafe<{ email: string; details: string }[]>(
      q(dialect, 'SELECT email, details FROM verifications WHERE user_id = ? AND email IN (?, ?) ORDER BY id'),
      ctx.account.id,
      plain.email,
      spelled.email,
    );
    expect(stored.map((row) => [row.email, Object.keys(JSON.parse(row.details))])).toEqual([
      [plain.email, Object.keys(plain.details)],
      [spelled.email, [...Object.keys(plain.details), 'evidence', 'normalized_email']],
    ]);
    expect(await cachedVerdict(ctx.database, ctx.account.id, plain.email, 0)).toEqual(plain);
    expect(await cachedVerdict(ctx.database, ctx.account.id, spelled.email, 0)).toEqual(spelled);
    // another spelling of the same mailbox gets its own normalized form
    expect(await cachedVerdict(ctx.database, ctx.account.id, 'RESTORE@example.com', 0)).toMatchObject({ normalized_email: 'RESTORE@example.com' });
  });
});
