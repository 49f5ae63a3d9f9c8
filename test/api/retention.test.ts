import { spawnSync } from 'node:child_process';
import { unzipSync, strFromU8 } from 'fflate';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as retention from '@/app/v1/account/retention/route';
import * as addresses from '@/app/v1/addresses/[email]/route';
import * as exported from '@/app/v1/export/route';
import * as usage from '@/app/v1/usage/route';
import * as single from '@/app/v1/verify/single/route';
import * as bulk from '@/app/v1/verify/bulk/route';
import * as status from '@/app/v1/verify/bulk/status/[jobId]/route';
import * as download from '@/app/v1/verify/bulk/download/[jobId]/route';
import * as webhooks from '@/app/v1/webhooks/route';
import * as rules from '@/app/v1/rules/route';
import * as monitors from '@/app/v1/monitors/route';
import * as reuse from '@/app/v1/account/reuse/route';
import { auditCredits } from '@/lib/accounts/audit';
import { createApiKey } from '@/lib/accounts/keys';
import { grantCredits } from '@/lib/accounts/quota';
import { ensureAccount } from '@/lib/accounts/users';
import type { Database } from '@/lib/db/client';
import { JobWorker } from '@/lib/jobs/worker/worker';
import { retentionState } from '@/lib/retention/policy';
import { DAY_MS } from '@/lib/usage/days';
import { retentionPass } from '@/lib/retention/sweep';
import { sandboxVerifier } from '@/lib/verifier/sandbox';
import { buildEvent, enqueueEvent } from '@/lib/webhooks/outbox';
import { DIALECTS } from '../databases';
import { assertWebhookPayload } from './contract';
import { call, setup, until } from './harness';
import { scriptArgs } from '../scripts';

// Retention, erasure and export (docs/retention.md) on both databases, in production mode with the
// sandbox engine (so credits are reserved, charged and audited). After a deletion or an erasure
// every table of the database is read whole and the address is found nowhere, while the credit
// ledger's audit still holds and the usage report still counts what was deleted.

/** The tables (every schema on PostgreSQL: pg-boss's too) whose rows hold `needle`, ignoring case. */
async function tablesHolding(database: Database, needle: string): Promise<string[]> {
  const { prisma, dialect } = database;
  const tables =
    dialect === 'sqlite'
      ? (await prisma.$queryRawUnsafe<{ name: string }[]>(`SELECT name FROM sqlite_master WHERE type = 'table'`)).map((t) => `"${t.name}"`)
      : (
          await prisma.$queryRawUnsafe<{ s: string; t: string }[]>(
            `SELECT table_schema AS s, table_name AS t FROM information_schema.tables WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`,
          )
        ).map((t) => `"${t.s}"."${t.t}"`);
  expect(tables.length).toBeGreaterThan(20);
  const holding: string[] = [];
  for (const table of tables) {
    const rows = await prisma.$queryRawUnsafe<unknown[]>(`SELECT * FROM ${table}`);
    const text = JSON.stringify(rows, (_key, value) => (typeof value === 'bigint' ? String(value) : value)).toLowerCase();
    if (text.includes(needle.toLowerCase())) holding.push(table.replaceAll('"', ''));
  }
  return holding;
}

const today = new Date().toISOString().slice(0, 10);

describe.each(DIALECTS)('retention, erasure and export on %s', (dialect) => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  let worker: JobWorker;

  beforeAll(async () => {
    ctx = await setup(dialect, {
      EV_PRODUCTION_ENGINE: 'sandbox',
      EV_ALLOW_PLACEHOLDER_IDENTITY: 'true',
      EV_FREE_DAILY: '3',
      EV_CHUNK_SIZE: '5',
      EV_RATE_LIMIT_PER_MINUTE: '10000',
      EV_CREATE_RATE_PER_MINUTE: '10000',
      EV_ALLOW_PRIVATE_NETWORKS: 'true',
      EV_RETENTION_DAYS: '30',
      EV_RETENTION_BATCH: '7',
    });
    // the worker verifies; retention passes are run by the tests on their own clock
    worker = new JobWorker(ctx.database, { concurrency: 4, leaseMs: 5000, pollMs: 20, verifierFor: () => sandboxVerifier, retention: false });
    worker.start();
  });
  afterAll(async () => {
    await worker.stop();
    await ctx.teardown();
  });

  async function account(credits = 500) {
    const user = await ensureAccount(ctx.database, `acct-${Math.random().toString(36).slice(2, 8)}@example.com`);
    const { key } = await createApiKey(ctx.database, user.id, 'test');
    await grantCredits(ctx.database, user.id, credits);
    return { id: user.id, key };
  }

  /** A list of `n` addresses plus `extra` rows, with a second column, verified to the end. */
  async function list(key: string, n: number, rows: string[][] = []) {
    const all = [...rows, ...Array.from({ length: n }, (_, i) => [`valid.row${i}.${Math.random().toString(36).slice(2, 6)}@example.com`, `note ${i}`])];
    const submitted = await call(bulk.POST, { key, sandbox: false, body: { columns: ['email', 'note'], rows: all, email_column: 0, filename: 'people.csv' } });
    expect(submitted.status).toBe(200);
    const jobId = submitted.json.job_id as string;
    const done = await until(
      () => call(status.GET, { key, sandbox: false, params: { jobId } }),
      (r) => r.json.status === 'completed',
    );
    expect(done.json.status).toBe('completed');
    return jobId;
  }

  const usageChecks = async (key: string) => {
    const report = await call(usage.GET, { key, sandbox: false, path: `/v1/usage?from=${today}&to=${today}` });
    return report.json.data.map((row: any) => ({ mode: row.mode, checks: row.checks, deliverable: row.deliverable, charged: row.charged }));
  };
  const count = async (table: string, where = '1 = 1', ...params: unknown[]) =>
    Number(
      (
        await ctx.database.prisma.$queryRawUnsafe<{ n: number | bigint }[]>(
          `SELECT COUNT(*) AS n FROM ${table} WHERE ${
            dialect === 'postgres'
              ? where.replace(
                  /\?/g,
                  (() => {
                    let i = 0;
                    return () => `$${++i}`;
                  })(),
                )
              : where
          }`,
          ...params,
        )
      )[0]!.n,
    );

  it('warns 7 and 1 days before, then deletes lists, results, history, idempotent answers and deliveries past the window; keeps usage and the books', async () => {
    const gone = `valid.gone.${dialect}@example.com`;
    const a = await account();
    const b = await account(); // keeps the installation's 30 days, with its own addresses
    const hook = await call(webhooks.POST, { key: a.key, body: { url: 'http://127.0.0.1:9999/hook', events: ['bulk.completed', 'list.expiring'] } });
    expect(hook.json).toMatchObject({ url: 'http://127.0.0.1:9999/hook' });

    // an account may only shorten the installation's window
    const tooLong = await call(retention.POST, { key: a.key, body: { retention_days: 31 } });
    expect(tooLong.status).toBe(400);
    expect(tooLong.json).toMatchObject({ error: 'invalid_request', param: 'retention_days' });
    const set = await call(retention.POST, { key: a.key, body: { retention_days: 10 } });
    expect(set.json).toMatchObject({ retention_days: 10, account_days: 10, default_days: 30, max_days: 30, expiring: [] });
    expect((await call(retention.GET, { key: b.key })).json).toMatchObject({ retention_days: 30, account_days: null });

    const t0 = Date.now();
    const queued = await list(a.key, 30, [
      [gone, 'first'],
      ['valid.other@example.com', `forwarded from ${gone}`],
    ]);
    const instant = await call(bulk.POST, { key: a.key, sandbox: false, body: { emails: [gone, 'valid.two@example.com'] } });
    expect(instant.json.status).toBe('completed');
    expect((await call(single.POST, { key: a.key, sandbox: false, body: { email: gone } })).status).toBe(200);
    expect((await call(single.POST, { key: a.key, sandbox: false, body: { email: gone }, headers: { 'idempotency-key': 'k-1' } })).status).toBe(200);
    expect((await call(single.POST, { key: a.key, sandbox: true, body: { email: gone } })).status).toBe(200);
    const kept = await list(b.key, 12);
    expect((await call(single.POST, { key: b.key, sandbox: false, body: { email: 'valid.b.single@example.com' } })).status).toBe(200);

    // the scan below finds the address where it is stored: it can fail
    const before = await tablesHolding(ctx.database, gone);
    expect(before).toEqual(expect.arrayContaining(['verifications', 'job_items', 'idempotency_keys'].map((t) => (dialect === 'postgres' ? `public.${t}` : t))));
    const usageBefore = await usageChecks(a.key);
    expect(usageBefore.find((r: any) => r.mode === 'production').checks).toBe(2 + 30 + 2 + 2);

    const pass = (days: number) => retentionPass(ctx.database, { now: t0 + days * DAY_MS, pace: false });
    const expiring = () => count('webhook_deliveries', `event_type = 'list.expiring'`);
    expect(await pass(2)).toMatchObject({ warned: 0, jobs: 0 });
    expect(await pass(3.5)).toMatchObject({ warned: 2, jobs: 0 });
    expect(await pass(3.6)).toMatchObject({ warned: 0 }); // once
    // the dashboard's banner: nothing within a week today; both lists on the clock of the warning
    expect((await call(retention.GET, { key: a.key })).json.expiring).toEqual([]);
    const state = await retentionState(ctx.database, a.id, t0 + 3.5 * DAY_MS);
    expect(state.expiring.map((l) => l.jobId).sort()).toEqual([queued, instant.json.job_id].sort());
    for (const l of state.expiring) expect(Date.parse(l.expiresAt)).toBeGreaterThan(t0 + 10 * DAY_MS - 60_000);
    expect(await pass(9.5)).toMatchObject({ warned: 2, jobs: 0 });
    const events = (await ctx.database.prisma.webhookDelivery.findMany({ where: { eventType: 'list.expiring' } })).map((d) => JSON.parse(d.payload));
    expect(events.map((e) => e.data.days_left).sort()).toEqual([1, 1, 7, 7]);
    for (const event of events) assertWebhookPayload(event);
    expect(events.find((e) => e.data.job_id === queued && e.data.days_left === 7).data).toMatchObject({ filename: 'people.csv', total_emails: 32 });
    expect(await expiring()).toBe(4);

    const report = await pass(10.5);
    expect(report).toMatchObject({ jobs: 2, results: 34, list_rows: 34, history: 3, idempotency_answers: 1 });
    expect(report.webhook_deliveries).toBeGreaterThanOrEqual(5); // bulk.completed ×2 and list.expiring ×4 were all queued before the cutoff

    expect(await tablesHolding(ctx.database, gone)).toEqual([]);
    expect(await count('jobs', 'user_id = ?', a.id)).toBe(0);
    expect(await count('verifications', 'user_id = ?', a.id)).toBe(0);
    expect(await count('webhook_deliveries')).toBe(0);
    expect((await call(status.GET, { key: a.key, sandbox: false, params: { jobId: queued } })).status).toBe(404);
    expect(await usageChecks(a.key)).toEqual(usageBefore);
    expect(await auditCredits(ctx.database)).toMatchObject({ problems: [] });
    // the other account's 30 days have not passed
    const other = await call(download.GET, { key: b.key, sandbox: false, params: { jobId: kept } });
    expect(other.status).toBe(200);
    expect(other.text.trim().split('\n')).toHaveLength(13);
    expect(await count('verifications', 'user_id = ?', b.id)).toBe(13);
    expect(await pass(29)).toMatchObject({ jobs: 0, history: 0 });
    expect(await pass(31)).toMatchObject({ jobs: 1, results: 12, history: 1 });
    expect(await auditCredits(ctx.database)).toMatchObject({ problems: [] });
  });

  it('keeps a held list (retention_hold) and never warns of it', async () => {
    const c = await account();
    await call(retention.POST, { key: c.key, body: { retention_days: 1 } });
    const held = await list(c.key, 11);
    const loose = await list(c.key, 11);
    await ctx.database.prisma.job.update({ where: { id: held }, data: { retentionHold: true } });
    expect(await retentionPass(ctx.database, { now: Date.now() + 0.5 * DAY_MS, pace: false })).toMatchObject({ warned: 1, jobs: 0 });
    const report = await retentionPass(ctx.database, { now: Date.now() + 2 * DAY_MS, pace: false });
    expect(report.jobs).toBe(1);
    expect(await count('jobs', 'id = ?', loose)).toBe(0);
    expect(await count('verifications', 'job_id = ?', held)).toBe(11);
    expect(await count('webhook_deliveries', `event_type = 'list.expiring' AND payload LIKE ?`, `%${held}%`)).toBe(0);
  });

  it('keeps a monitored list and its latest run, whatever their age, and never warns of them; older runs go', async () => {
    const c = await account();
    await call(retention.POST, { key: c.key, body: { retention_days: 1 } });
    const watched = await list(c.key, 11);
    const loose = await list(c.key, 11);
    const monitor = await call(monitors.POST, { key: c.key, sandbox: false, body: { list_id: watched, interval_days: 30 } });
    expect(monitor.status).toBe(201);
    // two runs as a worker's timer would have started them: the first is older than the latest
    const older = await list(c.key, 11);
    const latest = await list(c.key, 11);
    await ctx.database.prisma.job.updateMany({ where: { id: { in: [older, latest] } }, data: { monitorId: monitor.json.id } });
    await ctx.database.prisma.monitor.update({ where: { id: monitor.json.id }, data: { latestJobId: latest } });
    expect((await retentionState(ctx.database, c.id, Date.now() + 0.5 * DAY_MS)).expiring.map((e) => e.jobId).sort()).toEqual([loose, older].sort());
    expect(await retentionPass(ctx.database, { now: Date.now() + 0.5 * DAY_MS, pace: false })).toMatchObject({ warned: 2, jobs: 0 });
    expect(await retentionPass(ctx.database, { now: Date.now() + 40 * DAY_MS, pace: false })).toMatchObject({ jobs: 2 });
    expect(await count('jobs', 'id IN (?, ?)', loose, older)).toBe(0);
    expect(await count('verifications', 'job_id = ?', watched)).toBe(11);
    expect(await count('verifications', 'job_id = ?', latest)).toBe(11);
    expect(await count('webhook_deliveries', `event_type = 'list.expiring' AND (payload LIKE ? OR payload LIKE ?)`, `%${watched}%`, `%${latest}%`)).toBe(0);
  });

  it('finishes a deletion cut short by a killed process, counting every batch once', async () => {
    const d = await account();
    await call(retention.POST, { key: d.key, body: { retention_days: 1 } });
    const jobId = await list(d.key, 40);
    const usageBefore = await usageChecks(d.key);
    const now = Date.now() + 2 * DAY_MS;
    // a process that dies at the 4th batch, as a crash or an OOM kill would (lib/failpoints)
    const child = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '-e',
        `
      import { openDatabase } from './lib/db/client.ts';
      import { retentionPass } from './lib/retention/sweep.ts';
      const database = await openDatabase(process.env.DATABASE_URL);
      await retentionPass(database, { now: ${now}, batch: 7, pace: false });
      console.log('finished');
    `,
      ],
      { env: { ...process.env, EV_TEST_FAILPOINTS: 'retention.list-batch=4*exit' }, encoding: 'utf8' },
    );
    expect(child.signal).toBe('SIGKILL');
    expect(child.stdout).not.toContain('finished');
    // three batches of 7 gone, each counted in usage and the charges; the 4th was committed before the kill
    expect(await count('verifications', 'job_id = ?', jobId)).toBe(40 - 4 * 7);
    expect(await count('jobs', 'id = ?', jobId)).toBe(1);
    expect(await usageChecks(d.key)).toEqual(usageBefore);
    expect(await auditCredits(ctx.database)).toMatchObject({ problems: [] });
    const report = await retentionPass(ctx.database, { now, pace: false });
    expect(report).toMatchObject({ jobs: 1, results: 40 - 4 * 7, list_rows: 40 });
    expect(await count('jobs', 'id = ?', jobId)).toBe(0);
    expect(await count('job_items', 'job_id = ?', jobId)).toBe(0);
    expect(await usageChecks(d.key)).toEqual(usageBefore);
    expect(await auditCredits(ctx.database)).toMatchObject({ problems: [] });
  });

  it('runs in the workers on their timer: two workers, one lease, the list deleted and counted once', async () => {
    const h = await account();
    await call(retention.POST, { key: h.key, body: { retention_days: 2 } });
    const jobId = await list(h.key, 25);
    const usageBefore = await usageChecks(h.key);
    // three days old: the list and its results as they would stand after three days
    const old = Date.now() - 3 * DAY_MS;
    await ctx.database.prisma.job.update({ where: { id: jobId }, data: { createdAt: new Date(old) } });
    await ctx.database.prisma.verification.updateMany({ where: { jobId }, data: { createdAt: BigInt(old) } });
    process.env.EV_RETENTION_SWEEP_MS = '200';
    const sweepers = [1, 2].map(() => new JobWorker(ctx.database, { concurrency: 1, leaseMs: 5000, pollMs: 50, verifierFor: () => sandboxVerifier }));
    try {
      for (const w of sweepers) w.start();
      const left = await until(
        () => count('jobs', 'id = ?', jobId),
        (n) => n === 0,
        30_000,
      );
      expect(left).toBe(0);
    } finally {
      await Promise.all(sweepers.map((w) => w.stop()));
      delete process.env.EV_RETENTION_SWEEP_MS;
    }
    expect(await count('verifications', 'job_id = ?', jobId)).toBe(0);
    expect(await count('job_items', 'job_id = ?', jobId)).toBe(0);
    // counted once although two workers swept: usage is what it was, on the day the rows were made
    const report = await call(usage.GET, { key: h.key, sandbox: false, path: `/v1/usage?from=${new Date(old).toISOString().slice(0, 10)}&to=${today}` });
    const production = report.json.data.filter((r: any) => r.mode === 'production');
    expect(production.reduce((sum: number, r: any) => sum + r.checks, 0)).toBe(usageBefore.find((r: any) => r.mode === 'production').checks);
    expect(await count('maintenance_leases')).toBe(0); // released by the stopping workers
    expect(await auditCredits(ctx.database)).toMatchObject({ problems: [] });
  });

  it('erases an address from every store of the account, then of every account with npm run erase', async () => {
    const gone = `valid.erase.${dialect}@example.com`;
    const e = await account();
    const f = await account();
    const hook = await call(webhooks.POST, { key: e.key, body: { url: 'http://127.0.0.1:9999/hook', events: ['bulk.completed'] } });
    expect(hook.status).toBe(201);
    const jobId = await list(e.key, 12, [
      [gone, 'x'],
      ['valid.friend@example.com', `cc ${gone.toUpperCase()}`],
    ]);
    await call(bulk.POST, { key: e.key, sandbox: false, body: { emails: [gone, 'valid.z@example.com'] } });
    await call(single.POST, { key: e.key, sandbox: false, body: { email: gone }, headers: { 'idempotency-key': 'erase-1' } });
    expect((await call(rules.POST, { key: e.key, body: { action: 'allow', match: 'email', value: gone } })).status).toBe(201);
    // a delivery whose body names the address (as an event listing changed rows would)
    await ctx.database.prisma.$transaction((tx) => enqueueEvent(tx, e.id, buildEvent('webhook.test', false, { message: `about ${gone}` })));
    await list(f.key, 11, [[gone, 'f']]);
    await call(single.POST, { key: f.key, sandbox: true, body: { email: gone } });
    const usageBefore = await usageChecks(e.key);
    expect(await tablesHolding(ctx.database, gone)).not.toEqual([]);

    const bad = await call(addresses.DELETE, { key: e.key, method: 'DELETE', params: { email: 'not-an-address' } });
    expect(bad.status).toBe(400);
    const erased = await call(addresses.DELETE, { key: e.key, method: 'DELETE', params: { email: gone.toUpperCase() } });
    expect(erased.status).toBe(200);
    expect(erased.json).toEqual({
      success: true,
      email: gone.toUpperCase(),
      removed: { results: 3, list_rows: 3, rules: 1, idempotency_answers: 1, webhook_deliveries: 1 },
    });
    expect(await count('verifications', 'user_id = ? AND lower(email) = ?', e.id, gone)).toBe(0);
    expect(await count('verifications', 'user_id = ? AND lower(email) = ?', f.id, gone)).toBe(2); // another account's: untouched
    const csv = await call(download.GET, { key: e.key, sandbox: false, params: { jobId } });
    expect(csv.status).toBe(200);
    expect(csv.text.toLowerCase()).not.toContain(gone);
    expect(csv.text.trim().split('\n')).toHaveLength(1 + 12);
    expect(await usageChecks(e.key)).toEqual(usageBefore);
    expect(await auditCredits(ctx.database)).toMatchObject({ problems: [] });
    expect((await call(addresses.DELETE, { key: e.key, method: 'DELETE', params: { email: gone } })).json.removed).toEqual({
      results: 0,
      list_rows: 0,
      rules: 0,
      idempotency_answers: 0,
      webhook_deliveries: 0,
    });

    const script = spawnSync(process.execPath, [...scriptArgs('scripts/erase.ts'), '--email', gone, '--json'], { env: process.env, encoding: 'utf8' });
    expect(script.status).toBe(0);
    expect(JSON.parse(script.stdout)).toMatchObject({ email: gone, removed: { results: 2, list_rows: 1 } });
    expect(await tablesHolding(ctx.database, gone)).toEqual([]);
    expect(await auditCredits(ctx.database)).toMatchObject({ problems: [] });
  });

  it('exports the account as a zip of CSV and JSON files, without secrets', async () => {
    const g = await account();
    // an address checked, then answered in the list from that result (reuse of fresh results)
    const again = `valid.again.${dialect}@example.com`;
    expect((await call(reuse.POST, { key: g.key, sandbox: false, body: { days: 7 } })).status).toBe(200);
    const first = await call(single.POST, { key: g.key, sandbox: false, body: { email: again } });
    expect(first.status).toBe(200);
    const jobId = await list(g.key, 10, [[again, 'again']]);
    await call(single.POST, { key: g.key, sandbox: true, body: { email: 'valid.single@example.com' } });
    await call(rules.POST, { key: g.key, body: { action: 'block', match: 'domain', value: 'spam.test' } });
    const hook = await call(webhooks.POST, { key: g.key, body: { url: 'http://127.0.0.1:9999/hook' } });
    const answer = await exported.GET(new Request('http://localhost/v1/export', { headers: { authorization: `Bearer ${g.key}` } }), {
      params: Promise.resolve({}),
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/zip');
    expect(answer.headers.get('content-disposition')).toMatch(/^attachment; filename="export-\d{4}-\d\d-\d\d\.zip"$/);
    const files = unzipSync(new Uint8Array(await answer.arrayBuffer()));
    expect(Object.keys(files).sort()).toEqual([
      'account.json',
      'keys.json',
      'list-rows.csv',
      'lists.csv',
      'lists.json',
      'results.csv',
      'rules.csv',
      'webhooks.json',
    ]);
    const text = (name: string) => strFromU8(files[name]!);
    expect(JSON.parse(text('account.json'))).toMatchObject({ id: g.id, retention_days: 30 });
    expect(JSON.parse(text('lists.json'))).toMatchObject([
      { job_id: jobId, status: 'completed', total_emails: 11, filename: 'people.csv', columns: ['email', 'note'] },
    ]);
    const results = Papa.parse<Record<string, string>>(text('results.csv'), { header: true, skipEmptyLines: true }).data;
    expect(results).toHaveLength(13);
    expect(results.filter((r) => r.job_id === jobId)).toHaveLength(11);
    expect(results.find((r) => r.email === 'valid.single@example.com')).toMatchObject({ sandbox: 'true', status: 'deliverable', reused_at: '' });
    // the list's row says which result it repeats: reused_at, the time of the single check
    const checked = results.find((r) => r.email === again && r.job_id === '')!;
    expect(checked).toMatchObject({ sandbox: 'false', cached: 'false', reused_at: '' });
    expect(results.find((r) => r.email === again && r.job_id === jobId)).toMatchObject({ cached: 'true', reused_at: checked.created_at });
    expect(checked.created_at).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/);
    // every column of the table as the database has it, but the owner and the verdict's JSON
    const table =
      dialect === 'sqlite'
        ? (await ctx.database.prisma.$queryRawUnsafe<{ name: string }[]>(`SELECT name FROM pragma_table_info('verifications')`)).map((c) => c.name)
        : (
            await ctx.database.prisma.$queryRawUnsafe<{ name: string }[]>(
              `SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'verifications'`,
            )
          ).map((c) => c.name);
    expect(Object.keys(results[0]!).sort()).toEqual(table.filter((c) => c !== 'user_id' && c !== 'details').sort());
    expect(Papa.parse(text('list-rows.csv'), { header: true, skipEmptyLines: true }).data).toHaveLength(11);
    expect(text('rules.csv')).toContain('block,domain,spam.test');
    const keys = JSON.parse(text('keys.json'));
    expect(keys).toHaveLength(1);
    expect(text('keys.json')).not.toContain(g.key.slice(12));
    expect(keys[0]).not.toHaveProperty('hash');
    expect(JSON.parse(text('webhooks.json'))).toMatchObject([{ id: hook.json.id, url: 'http://127.0.0.1:9999/hook' }]);
    expect(text('webhooks.json')).not.toContain(hook.json.secret);
  });
});
