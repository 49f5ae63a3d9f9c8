import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as usage from '@/app/v1/usage/route';
import * as history from '@/app/v1/history/route';
import * as account from '@/app/v1/account/route';
import * as single from '@/app/v1/verify/single/route';
import * as bulk from '@/app/v1/verify/bulk/route';
import * as status from '@/app/v1/verify/bulk/status/[jobId]/route';
import * as rules from '@/app/v1/rules/route';
import { grantCredits } from '@/lib/accounts/quota';
import { JobWorker } from '@/lib/jobs/worker/worker';
import { sandboxVerdict, sandboxVerifier } from '@/lib/verifier/sandbox';
import { bucketOf } from '@/lib/verifier/vocabulary';
import { DIALECTS } from '../databases';
import { call, setup, until } from './harness';

const today = new Date().toISOString().slice(0, 10);
/** Two addresses the sandbox engine answers `unknown` (not charged, their reservation given back). */
const [unknownAddress, otherUnknown] = Array.from({ length: 2000 }, (_, i) => `someone${i}@example.com`).filter(
  (email) => sandboxVerdict(email).status === 'unknown',
);

describe.each(DIALECTS)('usage on %s', (dialect) => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  let worker: JobWorker;

  beforeAll(async () => {
    ctx = await setup(dialect, {
      EV_PRODUCTION_ENGINE: 'sandbox',
      EV_FREE_DAILY: '5',
      EV_ALLOW_PLACEHOLDER_IDENTITY: 'true',
      EV_CHUNK_SIZE: '5',
      EV_RATE_LIMIT_PER_MINUTE: '1000',
    });
    worker = new JobWorker(ctx.database, { concurrency: 4, leaseMs: 5000, pollMs: 20, verifierFor: () => sandboxVerifier });
    worker.start();
  });
  afterAll(async () => {
    await worker.stop();
    await ctx.teardown();
  });

  /** Every history record of a mode. */
  async function allHistory(sandbox: boolean) {
    const records: any[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await call(history.GET, { key: ctx.key, sandbox, path: `/v1/history?limit=100${cursor ? `&cursor=${cursor}` : ''}` });
      records.push(...page.json.data);
      cursor = page.json.next_cursor;
    } while (cursor);
    return records;
  }

  it('equals the history it summarises, per mode and verdict bucket, and the quota it moved', async () => {
    await grantCredits(ctx.database, ctx.account.id, 30);
    await call(rules.POST, { key: ctx.key, body: { action: 'block', match: 'domain', value: 'blocked.test' } });
    const singles = [
      'valid.a@example.com',
      'invalid.b@example.com',
      'risky.c@example.com',
      'not an address',
      unknownAddress,
      'x@blocked.test',
      'valid.a@example.com',
    ];
    for (const email of singles)
      for (const sandbox of [true, false]) expect((await call(single.POST, { key: ctx.key, sandbox, body: { email } })).status).toBe(200);
    await call(bulk.POST, { key: ctx.key, sandbox: false, body: { emails: ['valid.i1@x.com', 'catchall.i2@x.com', 'y@blocked.test', otherUnknown!] } });
    const queued = await call(bulk.POST, {
      key: ctx.key,
      sandbox: false,
      body: { emails: [...Array.from({ length: 11 }, (_, i) => `valid.q${i}@x.com`), 'q@blocked.test', 'Valid.Q0@x.com'] },
    });
    await until(
      () => call(status.GET, { key: ctx.key, sandbox: false, params: { jobId: queued.json.job_id } }),
      (r) => r.json.status === 'completed',
    );
    await call(bulk.POST, { key: ctx.key, sandbox: true, body: { emails: Array.from({ length: 12 }, (_, i) => `someone${i}@y.com`) } });
    await until(
      () => allHistory(true),
      (records) => records.length === singles.length + 12,
    );

    const report = await call(usage.GET, { key: ctx.key, sandbox: false, path: `/v1/usage?from=${today}&to=${today}` });
    expect(report.status).toBe(200);
    expect(report.json).toMatchObject({ from: today, to: today });
    for (const mode of ['production', 'sandbox'] as const) {
      const records = await allHistory(mode === 'sandbox');
      const row = report.json.data.find((r: any) => r.mode === mode);
      const bucketCount = (bucket: string) => records.filter((r) => bucketOf(r.status) === bucket).length;
      expect(row, mode).toMatchObject({
        day: today,
        checks: records.length,
        deliverable: bucketCount('deliverable'),
        undeliverable: bucketCount('undeliverable'),
        risky: bucketCount('risky'),
        unknown: bucketCount('unknown'),
      });
    }
    const production = report.json.data.find((r: any) => r.mode === 'production');
    const { used_today, credits } = (await call(account.GET, { key: ctx.key, sandbox: false })).json;
    // charged: what the quota lost (free checks used today plus credits spent), nothing else
    expect(production.charged).toBe(used_today + (30 - credits));
    // singles: valid, invalid (a server's answer), risky; instant: valid, catch-all; queued: 11 distinct mailboxes
    expect(production.charged).toBe(3 + 2 + 11);
    // refunded: the single unknown, the instant list's unknown, the queued job's blocked address (reserved at submission)
    expect(production.refunded).toBe(3);
    expect(production.credits_granted).toBe(30); // the grant above, from the credit ledger
    expect(report.json.data.find((r: any) => r.mode === 'sandbox')).toMatchObject({ charged: 0, refunded: 0, credits_granted: 0 });
  });

  it('answers the same rows as CSV, every day of the range, and refuses a range it cannot answer', async () => {
    const json = await call(usage.GET, { key: ctx.key, path: '/v1/usage' });
    expect(json.json.data).toHaveLength(60); // the last 30 days, both modes
    expect(json.json.to).toBe(today);
    const csv = await call(usage.GET, { key: ctx.key, path: '/v1/usage?format=csv' });
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(csv.headers.get('content-disposition')).toContain(`usage-${json.json.from}-${today}.csv`);
    const parsed = Papa.parse<Record<string, string>>(csv.text.trim(), { header: true });
    expect(parsed.meta.fields).toEqual(['day', 'mode', 'checks', 'deliverable', 'undeliverable', 'risky', 'unknown', 'charged', 'refunded', 'credits_granted']);
    expect(parsed.data).toEqual(
      json.json.data.map((r: any) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'number' ? String(v) : v]))),
    );
    for (const query of ['from=2026-02-30', `from=${today}&to=2020-01-01`, 'from=2020-01-01&to=2022-01-01', 'to=yesterday']) {
      const refused = await call(usage.GET, { key: ctx.key, path: `/v1/usage?${query}` });
      expect(refused.status, query).toBe(400);
      expect(refused.json.error).toBe('invalid_request');
    }
  });
});
