import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setup } from '../../test/api/harness';
import { DIALECTS } from '../../test/databases';
import { jobStatusGroups } from '../db/queries/results';
import { insertRows } from '../db/sql';
import type { Verdict } from '../verifier/types';
import { sandboxVerdict } from '../verifier/sandbox';
import { VERIFICATION_COLUMNS, verificationRow } from './rows';
import { summarize } from './summary';

const PREFIXES = ['valid', 'invalid', 'risky', 'catchall', 'disposable', 'role', 'unknown', 'plain'];

/** the summary counted in JavaScript from the verdicts themselves */
function expectedSummary(verdicts: Verdict[], total: number, duplicates: number) {
  const counts = { valid: 0, invalid: 0, unknown: 0, deliverable: 0, undeliverable: 0, risky: 0 };
  for (const verdict of verdicts) {
    if (verdict.status === 'unknown') counts.unknown++;
    else if (verdict.valid) counts.valid++;
    else counts.invalid++;
    if (verdict.status === 'deliverable') counts.deliverable++;
    else if (verdict.status === 'undeliverable') counts.undeliverable++;
    else if (verdict.status !== 'unknown') counts.risky++;
  }
  return { total, duplicates, ...counts, failed: total - duplicates - verdicts.length };
}

describe.each(DIALECTS)("a job's summary (%s)", (dialect) => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  beforeAll(async () => {
    ctx = await setup(dialect);
  });
  afterAll(async () => {
    await ctx.teardown();
  });

  it('adds up the same in ranges of indexes as at once: gaps, a first index above 0, another job beside it', async () => {
    // 25,003 results from index 37, a hole of 3,000 in the middle and every 11th index missing
    // (duplicates and unanswered rows have no result)
    const indexes: number[] = [];
    for (let idx = 37; indexes.length < 25_003; idx++) if (idx % 11 !== 0 && (idx < 9_000 || idx >= 12_000)) indexes.push(idx);
    const verdicts = indexes.map((idx) => sandboxVerdict(`${PREFIXES[idx % PREFIXES.length]}${idx}@example.com`));
    const at = Date.now();
    const row = (verdict: Verdict, jobId: string, idx: number) =>
      verificationRow(verdict, { userId: ctx.account.id, jobId, idx, sandbox: true, source: 'bulk', cached: false, at });
    await insertRows(
      ctx.database.prisma,
      dialect,
      'verifications',
      VERIFICATION_COLUMNS,
      verdicts.map((verdict, i) => row(verdict, 'job_summary', indexes[i]!)),
    );
    await insertRows(ctx.database.prisma, dialect, 'verifications', VERIFICATION_COLUMNS, [row(sandboxVerdict('valid@example.com'), 'job_beside', 5)]);
    const statuses = new Set(verdicts.map((verdict) => `${verdict.status}|${verdict.valid}`));
    expect(statuses.size).toBeGreaterThan(4);

    const total = indexes[indexes.length - 1]! + 1;
    const summary = await summarize(ctx.database.prisma, dialect, 'job_summary', total, 1_000);
    expect(summary).toEqual(expectedSummary(verdicts, total, 1_000));

    let groups = 0;
    for await (const _ of jobStatusGroups(ctx.database.prisma, dialect, 'job_summary')) groups++;
    // indexes 37 to 30,540: four ranges of 10,000 on SQLite
    expect(indexes[indexes.length - 1]).toBeGreaterThan(30_037);
    expect(indexes[indexes.length - 1]).toBeLessThan(40_037);
    expect(groups).toBe(dialect === 'sqlite' ? 4 : 1);
  });

  it("counts the results written earlier in the caller's own transaction, and none for a job without results", async () => {
    const verdicts = ['valid1@example.com', 'invalid2@example.com', 'unknown3@example.com'].map((email) => sandboxVerdict(email));
    const at = Date.now();
    const summary = await ctx.database.prisma.$transaction(async (tx) => {
      await insertRows(
        tx,
        dialect,
        'verifications',
        VERIFICATION_COLUMNS,
        verdicts.map((verdict, idx) =>
          verificationRow(verdict, { userId: ctx.account.id, jobId: 'job_own', idx, sandbox: true, source: 'bulk', cached: false, at }),
        ),
      );
      return summarize(tx, dialect, 'job_own', 4);
    });
    expect(summary).toEqual(expectedSummary(verdicts, 4, 0));
    expect(await summarize(ctx.database.prisma, dialect, 'job_none', 7, 2)).toEqual(expectedSummary([], 7, 2));
  });
});
