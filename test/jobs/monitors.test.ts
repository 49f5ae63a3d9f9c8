import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantCredits } from '@/lib/accounts/quota';
import { verifierFor } from '@/lib/checks/verifiers';
import { q } from '@/lib/db/sql';
import { JobWorker } from '@/lib/jobs/worker/worker';
import { submitQueued } from '@/lib/jobs/intake/submit';
import { runDueMonitors } from '@/lib/monitors/runs';
import { DAY_MS } from '@/lib/usage/days';
import * as monitors from '@/app/v1/monitors/route';
import * as monitor from '@/app/v1/monitors/[id]/route';
import * as download from '@/app/v1/verify/bulk/download/[jobId]/route';
import * as status from '@/app/v1/verify/bulk/status/[jobId]/route';
import { DIALECTS } from '../databases';
import { call, setup, until } from '../api/harness';
import { startTinyDns, type TinyDns } from '../peers/tiny-dns';
import { startScriptedSmtp, type ScriptedSmtp } from '../peers/scripted-smtp';

// Monitors (issue 32, items 1-2): a fake clock drives a monitored list through several periods while
// a scripted mail server changes its answers between runs (a mailbox closed, one opened) and a
// domain goes away from DNS; each run is a real production job verified by a worker.
const ZONE = { mx: { 'keep.test': [{ exchange: 'mx.keep.test', priority: 10 }] }, a: { 'mx.keep.test': '127.0.0.1' } };
const GONE = { mx: { 'gone.test': [{ exchange: 'mx.gone.test', priority: 10 }] }, a: { 'mx.gone.test': '127.0.0.1' } };

// two servers, before and after gone.test went: switching EV_DNS_SERVERS gives the verifier a fresh resolver (no cached MX)
let dnsBefore: TinyDns;
let dnsAfter: TinyDns;
let smtp: ScriptedSmtp;
/** the mailboxes the scripted server accepts: the test changes it between runs */
const open = new Set<string>();

beforeAll(async () => {
  dnsBefore = await startTinyDns({ mx: { ...ZONE.mx, ...GONE.mx }, a: { ...ZONE.a, ...GONE.a } });
  dnsAfter = await startTinyDns(ZONE); // gone.test no longer exists
  smtp = await startScriptedSmtp({ rcpt: (address) => (open.has(address.replace(/^<|>$/g, '').toLowerCase()) ? '250 2.1.5 OK' : '550 5.1.1 No such user') });
});
afterAll(async () => {
  await smtp?.stop();
  await dnsBefore?.stop();
  await dnsAfter?.stop();
});

const LIST = [
  ...Array.from({ length: 8 }, (_, i) => `stay${i}@keep.test`),
  'closing@keep.test',
  'opening@keep.test',
  'owner@gone.test',
  'never@keep.test',
  'Stay0@keep.test', // a duplicate of the first row: it follows its verdict
];

describe.each(DIALECTS)('a monitored list through several periods (%s)', (dialect) => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  let worker: JobWorker;

  beforeAll(async () => {
    ctx = await setup(dialect, {
      EV_DNS_SERVERS: dnsBefore.server,
      EV_DNS_CANARIES: 'mx.keep.test',
      EV_SMTP_PORT: String(smtp.port),
      EV_ALLOW_PRIVATE_NETWORKS: 'true',
      EV_ALLOW_PLACEHOLDER_IDENTITY: 'true',
      EV_SMTP_CONNECT_TIMEOUT_MS: '1000',
      EV_SMTP_COMMAND_TIMEOUT_MS: '1000',
      EV_FREE_DAILY: '0',
      EV_CHUNK_SIZE: '5',
      EV_RATE_LIMIT_PER_MINUTE: '1000',
      EV_CREATE_RATE_PER_MINUTE: '1000',
      EV_LEASE_MS: '5000',
      EV_SMTP_PACING: 'default=8/0', // one mail server on loopback: unpaced, so five periods take seconds
    });
    worker = new JobWorker(ctx.database, { concurrency: 4, leaseMs: 5000, pollMs: 20, verifierFor });
    worker.start();
    await ctx.database.prisma.webhook.create({
      data: {
        id: `wh_${dialect}mon`,
        userId: ctx.account.id,
        url: 'http://192.0.2.1/hook',
        secret: 'whsec_test',
        events: JSON.stringify(['list.changed', 'quota.exceeded']),
      },
    });
  });
  afterAll(async () => {
    await worker.stop();
    await ctx.teardown();
  });

  const jobOf = (id: string) => ctx.database.prisma.job.findUniqueOrThrow({ where: { id } });
  const completed = async (id: string) =>
    expect(
      (
        await until(
          () => jobOf(id),
          (job) => job.status === 'completed',
          60_000,
        )
      ).status,
    ).toBe('completed');
  const events = async (type: string) =>
    (await ctx.database.prisma.webhookDelivery.findMany({ where: { eventType: type }, orderBy: { createdAt: 'asc' } })).map(
      (d) => JSON.parse(d.payload) as { data: Record<string, any> },
    );
  const runsOf = (monitorId: string) => ctx.database.prisma.job.findMany({ where: { monitorId }, orderBy: { createdAt: 'asc' } });
  const charged = async (jobId: string) => {
    const [row] = await ctx.database.prisma.$queryRawUnsafe<{ n: number | bigint | null }[]>(
      q(dialect, `SELECT SUM(credits + free) AS n FROM credit_ledger WHERE cause = ? AND kind = 'charge'`),
      jobId,
    );
    return Number(row?.n ?? 0);
  };

  it('starts one run per period, charges it, reports what changed, and skips a period it cannot pay', async () => {
    await grantCredits(ctx.database, ctx.account.id, 100);
    open.clear();
    for (const address of ['closing@keep.test', 'owner@gone.test', ...LIST.filter((e) => e.startsWith('stay'))]) open.add(address);
    const { jobId: listId } = await submitQueued(ctx.database, {
      userId: ctx.account.id,
      sandbox: false,
      emails: LIST,
      columns: ['name', 'email'],
      rows: LIST.map((email, i) => JSON.stringify([`Person ${i}`, email])),
      filename: 'crm.csv',
    });
    await completed(listId);

    const created = await call(monitors.POST, { key: ctx.key, sandbox: false, body: { list_id: listId, interval_days: 30 } });
    expect(created.status).toBe(201);
    const monitorId = created.json.id as string;
    expect(created.json).toMatchObject({ list_id: listId, interval_days: 30, paused: false, latest_job_id: null });
    expect((await call(monitors.POST, { key: ctx.key, sandbox: false, body: { list_id: listId, interval_days: 60 } })).status).toBe(409);
    expect((await call(monitors.POST, { key: ctx.key, sandbox: false, body: { list_id: listId, interval_days: 0 } })).status).toBe(400);
    const start = Date.parse(created.json.next_run_at) - 30 * DAY_MS;

    // period 1: not before it is due; once when it is, however often the workers look
    expect((await runDueMonitors(ctx.database, start + 29 * DAY_MS)).started).toBe(0);
    expect((await runDueMonitors(ctx.database, start + 30 * DAY_MS)).started).toBe(1);
    expect((await runDueMonitors(ctx.database, start + 30 * DAY_MS + 1000)).started).toBe(0);
    const [first] = await runsOf(monitorId);
    expect(first!.previousJobId).toBe(listId);
    await completed(first!.id);
    expect(JSON.parse((await jobOf(first!.id)).changes!)).toEqual([]);
    expect(await events('list.changed')).toEqual([]); // nothing changed: nothing to say
    expect(await charged(first!.id)).toBe(12); // 12 distinct mailboxes (the 13th row repeats the first), each charged, like any list
    expect(await charged(first!.id)).toBe(await charged(listId));

    // between the runs: one mailbox closed, one opened, one domain gone
    open.delete('closing@keep.test');
    open.add('opening@keep.test');
    process.env.EV_DNS_SERVERS = dnsAfter.server;
    const checkedFrom = Date.now();
    expect((await runDueMonitors(ctx.database, start + 60 * DAY_MS + 5)).started).toBe(1);
    const second = (await runsOf(monitorId))[1]!;
    expect(second.previousJobId).toBe(first!.id);
    await completed(second.id);
    const expected = [
      { from: 'deliverable', to: 'undeliverable', count: 2 },
      { from: 'undeliverable', to: 'deliverable', count: 1 },
    ];
    expect(JSON.parse((await jobOf(second.id)).changes!)).toEqual(expected);
    const [changed] = await events('list.changed');
    expect(changed!.data).toMatchObject({
      monitor_id: monitorId,
      list_id: listId,
      job_id: second.id,
      previous_job_id: first!.id,
      total_emails: LIST.length,
      changed_emails: 3,
      changes: expected,
    });
    expect(changed!.data.changed_download_url).toContain(`/v1/verify/bulk/download/${second.id}?changed=true`);

    // the changed rows only, with the upload's own columns first
    const file = await call(download.GET, {
      key: ctx.key,
      sandbox: false,
      path: `/v1/verify/bulk/download/${second.id}?changed=true&format=csv`,
      params: { jobId: second.id },
    });
    expect(file.status).toBe(200);
    const lines = file.text.trim().split('\r\n');
    expect(lines[0]!.startsWith('name,email,')).toBe(true);
    expect(
      lines
        .slice(1)
        .map((line) => line.split(',')[1])
        .sort(),
    ).toEqual(['closing@keep.test', 'opening@keep.test', 'owner@gone.test']);
    const notARun = await call(download.GET, {
      key: ctx.key,
      sandbox: false,
      path: `/v1/verify/bulk/download/${listId}?changed=true`,
      params: { jobId: listId },
    });
    expect(notARun.status).toBe(400);

    // the job page says when each row was checked
    const page = await call(status.GET, { key: ctx.key, sandbox: false, path: `/v1/verify/bulk/status/${second.id}`, params: { jobId: second.id } });
    const checkedAt = (page.json.data.results as { checked_at: string; reused: boolean }[]).map((r) => Date.parse(r.checked_at));
    expect(checkedAt.length).toBe(LIST.length - 1); // the page lists stored results: the duplicate row has none of its own
    expect(checkedAt.every((t) => t >= checkedFrom && t <= Date.now())).toBe(true);

    // period 3 cannot be paid: skipped, once, and said with quota.exceeded
    const { credits } = await ctx.database.prisma.user.findUniqueOrThrow({ where: { id: ctx.account.id } });
    await ctx.database.prisma.user.update({ where: { id: ctx.account.id }, data: { credits: 0 } });
    expect(await runDueMonitors(ctx.database, start + 90 * DAY_MS)).toMatchObject({ started: 0, skipped: 1 });
    expect(await runDueMonitors(ctx.database, start + 90 * DAY_MS + 1)).toMatchObject({ started: 0, skipped: 0 });
    expect((await runsOf(monitorId)).length).toBe(2);
    const exceeded = await events('quota.exceeded');
    expect(exceeded.length).toBe(1);
    expect(exceeded[0]!.data).toMatchObject({ monitor_id: monitorId, list_id: listId, required: 12, credits: 0 });
    const skipped = await call(monitor.GET, { key: ctx.key, sandbox: false, params: { id: monitorId } });
    expect(skipped.json).toMatchObject({ last_skip_reason: 'insufficient_credits', last_skipped_at: new Date(start + 90 * DAY_MS).toISOString() });
    await ctx.database.prisma.user.update({ where: { id: ctx.account.id }, data: { credits } });

    // paused: no run however late; resumed: the run that was due starts
    expect((await call(monitor.PATCH, { key: ctx.key, sandbox: false, method: 'PATCH', params: { id: monitorId }, body: { paused: true } })).json.paused).toBe(
      true,
    );
    expect((await runDueMonitors(ctx.database, start + 200 * DAY_MS)).started).toBe(0);
    expect((await call(monitor.PATCH, { key: ctx.key, sandbox: false, method: 'PATCH', params: { id: monitorId }, body: { paused: false } })).json.paused).toBe(
      false,
    );
    expect((await runDueMonitors(ctx.database, start + 200 * DAY_MS)).started).toBe(1);
    const third = (await runsOf(monitorId))[2]!;
    expect(third.previousJobId).toBe(second.id);
    await completed(third.id);
    // missed periods are not run one after another: the next is one interval from the late run
    const after = await call(monitor.GET, { key: ctx.key, sandbox: false, params: { id: monitorId } });
    expect(after.json.next_run_at).toBe(new Date(start + 230 * DAY_MS).toISOString());

    // the list's health: the list and each run, with its counts and changes
    const health = after.json.runs as { job_id: string; deliverable: number; undeliverable: number; changed_emails: number | null }[];
    expect(health.map((r) => r.job_id)).toEqual([listId, first!.id, second.id, third.id]);
    expect(health.map((r) => [r.deliverable, r.undeliverable])).toEqual([
      [10, 2],
      [10, 2],
      [9, 3],
      [9, 3],
    ]); // distinct mailboxes, as the job summary counts them
    expect(health.map((r) => r.changed_emails)).toEqual([null, 0, 3, 0]);

    // deleted: no more runs, its runs stay
    expect((await call(monitor.DELETE, { key: ctx.key, sandbox: false, method: 'DELETE', params: { id: monitorId } })).json).toMatchObject({ deleted: true });
    expect((await runDueMonitors(ctx.database, start + 400 * DAY_MS)).started).toBe(0);
    expect((await call(monitor.GET, { key: ctx.key, sandbox: false, params: { id: monitorId } })).status).toBe(404);
    expect((await runsOf(monitorId)).length).toBe(3);
    process.env.EV_DNS_SERVERS = dnsBefore.server;
  }, 180_000);
});
