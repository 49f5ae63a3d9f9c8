import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setup } from '../../../test/api/harness';
import { DIALECTS } from '../../../test/databases';
import { VERIFICATION_COLUMNS, verificationRow } from '../../results/rows';
import { sandboxVerdict } from '../../verifier/sandbox';
import { insertRows } from '../sql';
import { jobProviderGroups, unansweredItems } from './jobs';

const DOMAINS = ['gmail.com', 'outlook.com', 'example.org', 'yahoo.co.jp'];

describe.each(DIALECTS)("the jobs' named queries (%s)", (dialect) => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  beforeAll(async () => {
    ctx = await setup(dialect);
  });
  afterAll(async () => {
    await ctx.teardown();
  });

  it("counts a job's verified mailboxes per provider: SQLite in ranges of indexes that add up, PostgreSQL at once", async () => {
    // 12,001 results with a hole in the indexes, every 7th address malformed (not a mailbox: left out)
    const verdicts = Array.from({ length: 12_001 }, (_, i) => sandboxVerdict(i % 7 === 0 ? `broken${i}` : `user${i}@${DOMAINS[i % DOMAINS.length]}`));
    const indexes = verdicts.map((_, i) => (i < 6_000 ? i : i + 500));
    const at = Date.now();
    const rows = verdicts.map((verdict, i) =>
      verificationRow(verdict, { userId: ctx.account.id, jobId: 'job_groups', idx: indexes[i]!, sandbox: true, source: 'bulk', cached: false, at }),
    );
    await insertRows(ctx.database.prisma, dialect, 'verifications', VERIFICATION_COLUMNS, rows);
    // another job's results are not counted
    await insertRows(ctx.database.prisma, dialect, 'verifications', VERIFICATION_COLUMNS, [
      verificationRow(sandboxVerdict('other@gmail.com'), {
        userId: ctx.account.id,
        jobId: 'job_other',
        idx: 0,
        sandbox: true,
        source: 'bulk',
        cached: false,
        at,
      }),
    ]);

    const expected = new Map<string, number>();
    for (const verdict of verdicts) {
      if (verdict.reason === 'invalid_email') continue;
      const key = `${verdict.provider}|${verdict.mailbox_provider}`;
      expected.set(key, (expected.get(key) ?? 0) + 1);
    }
    expect(expected.size).toBeGreaterThan(1);
    expect([...expected.values()].reduce((a, b) => a + b, 0)).toBeLessThan(verdicts.length);

    const counted = new Map<string, number>();
    let groups = 0;
    for await (const group of jobProviderGroups(ctx.database, 'job_groups')) {
      groups++;
      for (const row of group) {
        const key = `${row.provider}|${row.mailbox}`;
        counted.set(key, (counted.get(key) ?? 0) + Number(row.n));
      }
    }
    expect(counted).toEqual(expected);
    // the highest index is 12,500: three ranges of 5,000 on SQLite
    expect(groups).toBe(dialect === 'sqlite' ? 3 : 1);

    const none: unknown[] = [];
    for await (const group of jobProviderGroups(ctx.database, 'job_none')) none.push(group);
    expect(none).toEqual([]);
  });

  it("reads a chunk's first occurrences that have no result yet, in index order, however many pages it takes", async () => {
    const jobId = 'job_items';
    const items = Array.from({ length: 5_000 }, (_, idx) => [jobId, idx, `a${idx}@example.com`, null, idx % 10 === 9 ? idx - 1 : null]);
    await insertRows(ctx.database.prisma, dialect, 'job_items', ['job_id', 'idx', 'email', 'row', 'duplicate_of'], items);
    const answered = Array.from({ length: 5_000 }, (_, idx) => idx).filter((idx) => idx % 3 === 0);
    const at = Date.now();
    await insertRows(
      ctx.database.prisma,
      dialect,
      'verifications',
      VERIFICATION_COLUMNS,
      answered.map((idx) =>
        verificationRow(sandboxVerdict(`a${idx}@example.com`), { userId: ctx.account.id, jobId, idx, sandbox: true, source: 'bulk', cached: false, at }),
      ),
    );
    const expected: { idx: number[]; email: string[] } = { idx: [], email: [] };
    for (let idx = 100; idx < 4_900; idx++) {
      if (idx % 10 === 9 || idx % 3 === 0) continue;
      expected.idx.push(idx);
      expected.email.push(`a${idx}@example.com`);
    }
    expect(expected.idx.length).toBeGreaterThan(2_000);
    expect(await unansweredItems(ctx.database, jobId, 100, 4_900)).toEqual(expected);
    expect(await unansweredItems(ctx.database, jobId, 4_900, 4_900)).toEqual({ idx: [], email: [] });
    // a range whose one result is its first or its last item (4902 is answered): still left out
    expect(await unansweredItems(ctx.database, jobId, 4_902, 4_904)).toEqual({ idx: [4_903], email: ['a4903@example.com'] });
    expect(await unansweredItems(ctx.database, jobId, 4_901, 4_903)).toEqual({ idx: [4_901], email: ['a4901@example.com'] });
    // a range without any result (a chunk's first run): every first occurrence, however many pages
    const fresh = 'job_items_fresh';
    await insertRows(
      ctx.database.prisma,
      dialect,
      'job_items',
      ['job_id', 'idx', 'email', 'row', 'duplicate_of'],
      items.map(([, ...rest]) => [fresh, ...rest]),
    );
    const firsts = Array.from({ length: 4_800 }, (_, i) => i + 100).filter((idx) => idx % 10 !== 9);
    expect(await unansweredItems(ctx.database, fresh, 100, 4_900)).toEqual({ idx: firsts, email: firsts.map((idx) => `a${idx}@example.com`) });
  });
});
