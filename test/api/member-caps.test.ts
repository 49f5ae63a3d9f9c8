import Papa from 'papaparse';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import * as single from '@/app/v1/verify/single/route';
import * as bulk from '@/app/v1/verify/bulk/route';
import * as job from '@/app/v1/verify/bulk/[jobId]/route';
import * as member from '@/app/v1/members/[userId]/route';
import * as usage from '@/app/v1/usage/route';
import { auditCredits } from '@/lib/accounts/audit';
import { createApiKey } from '@/lib/accounts/keys';
import { grantCredits } from '@/lib/accounts/quota';
import { ensureAccount } from '@/lib/accounts/users';
import { sandboxVerdict } from '@/lib/verifier/sandbox';
import { DIALECTS } from '../databases';
import { call, sessionCookie, setup } from './harness';

/**
 * Credits per member (issue 30, item 4): a person's charged checks capped per UTC day and per
 * calendar month, counted in the reservation's transaction (lib/accounts/member-caps.ts) and given
 * back with its refund, so concurrent requests of one person never pass the cap while the others in
 * the organisation go on; GET /v1/usage?by=member splits the charges by person.
 */

const ORIGIN = { origin: 'http://localhost', host: 'localhost' };
/** Addresses the sandbox engine (EV_PRODUCTION_ENGINE=sandbox) answers with a charged verdict, and one it answers `unknown` (given back). */
const charged = (tag: string, i: number) => `valid.${tag}${i}@example.com`;
const unknownAddress = Array.from({ length: 2000 }, (_, i) => `someone${i}@example.com`).find((email) => sandboxVerdict(email).status === 'unknown')!;

describe.each(DIALECTS)('member caps on %s', (dialect) => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  let ownerCookie: string;
  let n = 0;

  /** A person who is a member of the test's organisation, with a dashboard session in it and a key they made. */
  async function person(role: 'member' | 'admin' = 'member') {
    const user = await ensureAccount(ctx.database, `${role}-${dialect}-${n++}-${Date.now()}@example.com`);
    await ctx.database.prisma.membership.create({ data: { orgId: ctx.account.id, userId: user.id, role } });
    const maker = { scopes: null, allowedIps: null, expiresAt: null, role, personId: user.id };
    const { key } = await createApiKey(ctx.database, ctx.account.id, { name: `${user.email}'s key` }, maker);
    return { id: user.id, email: user.email, key, cookie: await sessionCookie(ctx.database, user.id, ctx.account.id) };
  }

  /** The owner caps a person through PATCH /v1/members/{userId}, as the dashboard does. */
  async function cap(userId: string, caps: { checks_per_day?: number | null; checks_per_month?: number | null }) {
    const answer = await call(member.PATCH, {
      method: 'PATCH',
      key: null,
      path: `/v1/members/${userId}`,
      params: { userId },
      headers: { cookie: ownerCookie, ...ORIGIN },
      body: caps,
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json).toMatchObject(caps);
  }

  const checkWithKey = (key: string, email: string, sandbox = false) => call(single.POST, { key, sandbox, path: '/v1/verify/single', body: { email } });
  const checkWithSession = (cookie: string, email: string) =>
    call(single.POST, { key: null, sandbox: false, path: '/v1/verify/single', headers: { cookie, ...ORIGIN }, body: { email } });
  const counted = async (userId: string) =>
    (await ctx.database.prisma.memberUsageDay.findMany({ where: { orgId: ctx.account.id, userId } })).reduce((sum, row) => sum + row.used, 0);
  const problems = async () => (await auditCredits(ctx.database)).problems.flatMap((p) => p.problems);
  const credits = async () => (await ctx.database.prisma.user.findUniqueOrThrow({ where: { id: ctx.account.id } })).credits;

  beforeAll(async () => {
    ctx = await setup(dialect, {
      EV_PRODUCTION_ENGINE: 'sandbox',
      EV_ALLOW_PLACEHOLDER_IDENTITY: 'true',
      EV_EMBEDDED_WORKER: 'false',
      EV_FREE_DAILY: '3',
      EV_RATE_LIMIT_PER_MINUTE: '100000',
      EV_CREATE_RATE_PER_MINUTE: '100000',
      EV_MAX_ACTIVE_KEYS_PER_ACCOUNT: '1000',
    });
    ownerCookie = await sessionCookie(ctx.database, ctx.account.id);
    await grantCredits(ctx.database, ctx.account.id, 10_000);
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  afterAll(() => ctx?.teardown());

  it("never lets concurrent requests of a capped member pass the day's cap, while the owner's at the same time are answered", async () => {
    const capped = await person();
    await cap(capped.id, { checks_per_day: 5 });
    const mine = Array.from({ length: 20 }, (_, i) => (i % 2 ? checkWithKey(capped.key, charged('c', i)) : checkWithSession(capped.cookie, charged('c', i))));
    const owners = Array.from({ length: 10 }, (_, i) => checkWithKey(ctx.key, charged('o', i)));
    const [answers, ownerAnswers] = await Promise.all([Promise.all(mine), Promise.all(owners)]);

    expect(answers.filter((a) => a.status === 200)).toHaveLength(5);
    const refused = answers.filter((a) => a.status !== 200);
    expect(refused).toHaveLength(15);
    const tomorrow = new Date(Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`) + 86_400_000).toISOString().replace('.000Z', 'Z');
    for (const answer of refused) {
      expect(answer.status).toBe(402);
      expect(answer.json).toMatchObject({ error: 'member_cap_reached', period: 'day', cap: 5, used: 5, required: 1, resets_at: tomorrow });
      expect(answer.json.message).toContain('5 charged checks per day');
      expect(answer.json.message).toContain(tomorrow);
    }
    // the owner has no cap: every one of theirs answered, none refused
    expect(ownerAnswers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(await counted(capped.id)).toBe(5);
    expect(await counted(ctx.account.id)).toBe(10);
    // the sandbox never counts: the capped member still checks there
    expect((await checkWithKey(capped.key, charged('sandbox', 0), true)).status).toBe(200);
    // the cap raised: they go on at once
    await cap(capped.id, { checks_per_day: 6 });
    expect((await checkWithSession(capped.cookie, charged('c', 100))).status).toBe(200);
    expect((await checkWithSession(capped.cookie, charged('c', 101))).status).toBe(402);
    expect(await counted(capped.id)).toBe(6);
    expect(await problems()).toEqual([]);
  });

  it('refuses a list that would pass the cap whole, and gives back what a cancelled list or an unknown answer did not charge', async () => {
    const lister = await person();
    await cap(lister.id, { checks_per_day: 12 });
    const before = await credits();
    const list = (tag: string, size: number) => Array.from({ length: size }, (_, i) => charged(tag, i));

    const tooMany = await call(bulk.POST, { key: lister.key, sandbox: false, body: { emails: list('big', 13) } });
    expect(tooMany.status).toBe(402);
    expect(tooMany.json).toMatchObject({ error: 'member_cap_reached', period: 'day', cap: 12, used: 0, required: 13 });
    // refused whole: nothing reserved, counted or written
    expect(await counted(lister.id)).toBe(0);
    expect(await credits()).toBe(before);
    expect(await ctx.database.prisma.job.count({ where: { userId: ctx.account.id } })).toBe(0);
    // an instant list of 10, from their session, fits under 12
    const instant = await call(bulk.POST, { key: null, sandbox: false, headers: { cookie: lister.cookie, ...ORIGIN }, body: { emails: list('x', 10) } });
    expect(instant.status).toBe(200);
    expect(await counted(lister.id)).toBe(10);
    // an unknown answer is not charged: the member's count comes back with the credit
    expect((await checkWithKey(lister.key, unknownAddress)).json.status).toBe('unknown');
    expect(await counted(lister.id)).toBe(10);

    // a queued list of 11 would pass (10 + 11 > 12); of 2 it fits, and cancelling it gives both back
    expect((await call(bulk.POST, { key: lister.key, sandbox: false, body: { emails: list('q', 11) } })).status).toBe(402);
    const queued = await call(bulk.POST, {
      key: lister.key,
      sandbox: false,
      body: { emails: [...list('q', 2), ...list('dup', 9).map(() => charged('q', 0))] },
    });
    expect(queued.status).toBe(200);
    expect(queued.json.status).toBe('queued');
    expect(await counted(lister.id)).toBe(12);
    expect((await checkWithKey(lister.key, charged('after', 0))).status).toBe(402);
    // the owner cancels it: the give-back is the member's, whoever cancels
    const cancelled = await call(job.DELETE, {
      method: 'DELETE',
      key: ctx.key,
      sandbox: false,
      path: `/v1/verify/bulk/${queued.json.job_id}`,
      params: { jobId: queued.json.job_id },
    });
    expect(cancelled.status).toBe(200);
    expect(await counted(lister.id)).toBe(10);
    expect((await checkWithKey(lister.key, charged('after', 1))).status).toBe(200);
    expect(await counted(lister.id)).toBe(11);
    expect(await problems()).toEqual([]);
  });

  it('caps a calendar month across its days, and lets the member go on when the next month begins', async () => {
    const monthly = await person('admin');
    await cap(monthly.id, { checks_per_month: 3 });
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-12-10T12:00:00Z'));
    expect((await checkWithKey(monthly.key, charged('m', 0))).status).toBe(200);
    expect((await checkWithKey(monthly.key, charged('m', 1))).status).toBe(200);
    vi.setSystemTime(new Date('2026-12-31T23:00:00Z'));
    expect((await checkWithKey(monthly.key, charged('m', 2))).status).toBe(200);
    const refused = await checkWithKey(monthly.key, charged('m', 3));
    expect(refused.status).toBe(402);
    expect(refused.json).toMatchObject({ error: 'member_cap_reached', period: 'month', cap: 3, used: 3, resets_at: '2027-01-01T00:00:00Z' });
    expect(refused.json.message).toContain('per calendar month');
    vi.setSystemTime(new Date('2027-01-01T00:30:00Z'));
    expect((await checkWithKey(monthly.key, charged('m', 4))).status).toBe(200);
    const rows = await ctx.database.prisma.memberUsageDay.findMany({ where: { orgId: ctx.account.id, userId: monthly.id }, orderBy: { day: 'asc' } });
    expect(rows.map((r) => [r.day, r.used])).toEqual([
      ['2026-12-10', 2],
      ['2026-12-31', 1],
      ['2027-01-01', 1],
    ]);
    const months = await ctx.database.prisma.memberUsageMonth.findMany({ where: { orgId: ctx.account.id, userId: monthly.id }, orderBy: { month: 'asc' } });
    expect(months.map((r) => [r.month, r.used])).toEqual([
      ['2026-12', 3],
      ['2027-01', 1],
    ]);
    vi.useRealTimers();
    expect(await problems()).toEqual([]);
  });

  it('splits usage by member, matching the charges, as JSON and CSV', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const report = await call(usage.GET, { key: ctx.key, sandbox: false, path: `/v1/usage?from=${today}&to=${today}&by=member` });
    expect(report.status).toBe(200);
    const members = report.json.members as {
      user_id: string;
      email: string;
      role: string | null;
      charged_today: number;
      charged_this_month: number;
      charged: number;
      checks_per_day: number | null;
      days: { day: string; charged: number }[];
    }[];
    // everything of today is settled: the split adds up to the production row's charges
    const production = report.json.data.find((row: { mode: string }) => row.mode === 'production');
    expect(members.reduce((sum, m) => sum + m.charged, 0)).toBe(production.charged);
    const byEmail = new Map(members.map((m) => [m.email, m]));
    const owner = byEmail.get(ctx.account.email)!;
    expect(owner).toMatchObject({ role: 'owner', charged_today: 10, charged: 10, checks_per_day: null, days: [{ day: today, charged: 10 }] });
    // each person's count is their charges in the ledger: reserved by them, less what was given back
    for (const m of members) {
      const reserves = await ctx.database.prisma.creditMovement.findMany({
        where: { userId: ctx.account.id, actorId: m.user_id, kind: 'reserve', day: today },
      });
      const refunds = await ctx.database.prisma.creditMovement.findMany({ where: { cause: { in: reserves.map((r) => r.cause) }, kind: 'refund' } });
      const net = reserves.reduce((s, r) => s + r.credits + r.free, 0) - refunds.reduce((s, r) => s + r.credits + r.free, 0);
      expect(m.charged_today, m.email).toBe(net);
    }
    expect(members.filter((m) => m.checks_per_day === 6)).toHaveLength(1);
    expect(members.find((m) => m.checks_per_day === 6)!.charged_today).toBe(6);
    expect(members.find((m) => m.checks_per_day === 12)!.charged_today).toBe(11);
    // the default answer is unchanged: no split
    const plain = await call(usage.GET, { key: ctx.key, sandbox: false, path: `/v1/usage?from=${today}&to=${today}` });
    expect(plain.json.members).toBeUndefined();
    expect(plain.json.data).toEqual(report.json.data);

    const csv = await call(usage.GET, { key: ctx.key, sandbox: false, path: `/v1/usage?from=${today}&to=${today}&by=member&format=csv` });
    expect(csv.headers.get('content-type')).toContain('text/csv');
    const parsed = Papa.parse<Record<string, string>>(csv.text.trim(), { header: true });
    expect(parsed.meta.fields).toEqual(['day', 'user_id', 'email', 'role', 'charged']);
    expect(parsed.data.map((row) => [row.email, Number(row.charged)])).toEqual(members.map((m) => [m.email, m.charged]));
    // a `by` the API does not know is a 400
    expect((await call(usage.GET, { key: ctx.key, sandbox: false, path: '/v1/usage?by=person' })).status).toBe(400);
  });
});
