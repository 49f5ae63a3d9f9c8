import { execFile } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '@/test/databases';
import { setup } from '@/test/api/harness';
import { newId } from '@/lib/db/ids';
import { verifySingle } from '@/lib/checks/single';
import { submitBulk } from '@/lib/jobs/intake/submit';
import { cancelJob } from '@/lib/jobs/worker/lifecycle';
import { accountUsage, grantCredits, refund, reserve } from './quota';
import { auditCredits } from './audit';
import { sweepReservations } from './sweeper';
import { recordSingle } from '@/lib/results/history';
import { sandboxVerdict } from '@/lib/verifier/sandbox';

const noLimits = async () => {};

/** `npm run audit-credits` against the test's database: its exit code and output. */
function auditCommand(): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile('node_modules/.bin/tsx', ['scripts/audit-credits.ts'], { env: process.env }, (error, stdout) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout });
    });
  });
}

describe.each(DIALECTS)('the credit ledger (%s)', (dialect) => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  beforeAll(async () => {
    ctx = await setup(dialect, { EV_FREE_DAILY: '3', EV_PRODUCTION_ENGINE: 'sandbox', EV_ALLOW_PLACEHOLDER_IDENTITY: 'true', EV_EMBEDDED_WORKER: 'false' });
  });
  afterAll(() => ctx.teardown());

  const problems = async () => (await auditCredits(ctx.database)).problems.flatMap((p) => p.problems);
  const kinds = async (cause: string) =>
    (await ctx.database.prisma.creditMovement.findMany({ where: { cause }, orderBy: { id: 'asc' } })).map((m) => `${m.kind} ${m.credits}+${m.free}`);

  it('writes a grant, a reserve, and a charge with a refund of the unused part, and the audit holds', async () => {
    await grantCredits(ctx.database, ctx.account.id, 10, 'grant_invoice-1');
    await expect(grantCredits(ctx.database, ctx.account.id, 10, 'grant_invoice-1')).rejects.toThrow();
    expect((await accountUsage(ctx.database, ctx.account.id)).credits).toBe(10);
    // single checks: a deliverable one is charged, an unknown one refunded
    await verifySingle(ctx.database, ctx.account.id, false, 'someone@example.com');
    await verifySingle(ctx.database, ctx.account.id, false, 'unknown1@example.com');
    // an instant bulk of 5 distinct valid mailboxes, one of them unknown
    const instant = await submitBulk(
      ctx.database,
      {
        userId: ctx.account.id,
        sandbox: false,
        emails: ['a@example.com', 'b@example.com', 'c@example.com', 'd@example.com', 'unknown32@example.com', 'A@example.com'],
      },
      noLimits,
    );
    expect(await kinds(instant.jobId)).toEqual(['reserve 3+2', 'charge 2+2', 'refund 1+0']);
    expect(await accountUsage(ctx.database, ctx.account.id)).toMatchObject({ usedToday: 3, credits: 8 });
    expect(await problems()).toEqual([]);
  });

  it('settles a cancelled queued job once: charge for its results, refund for the rest', async () => {
    await grantCredits(ctx.database, ctx.account.id, 20);
    const emails = Array.from({ length: 12 }, (_, i) => `q${i}@example.com`);
    const queued = await submitBulk(ctx.database, { userId: ctx.account.id, sandbox: false, emails }, noLimits);
    expect(await kinds(queued.jobId)).toEqual(['reserve 12+0']);
    expect(await problems()).toEqual([]); // an open reservation of a running job
    await cancelJob(ctx.database, ctx.account.id, queued.jobId, false);
    expect(await kinds(queued.jobId)).toEqual(['reserve 12+0', 'charge 0+0', 'refund 12+0']);
    expect(await problems()).toEqual([]);
  });

  it('names an account whose balance moved outside the ledger, or whose result was stored free', async () => {
    await ctx.database.prisma.user.update({ where: { id: ctx.account.id }, data: { credits: { increment: 5 } } });
    expect(await problems()).toEqual([expect.stringMatching(/^credits 33 ≠ grants 30 − charges 2 − open reservations 0 = 28$/)]);
    const failing = await auditCommand();
    expect(failing.code).toBe(1);
    expect(failing.stdout).toContain(`✗ ${ctx.account.email}`);
    await ctx.database.prisma.user.update({ where: { id: ctx.account.id }, data: { credits: { decrement: 5 } } });
    expect(await auditCommand()).toMatchObject({ code: 0, stdout: expect.stringMatching(/The books hold for all 1 accounts/) });
    const { verdict } = await verifySingle(ctx.database, ctx.account.id, true, 'valid-free@example.com');
    await ctx.database.prisma.verification.updateMany({ where: { email: verdict.email }, data: { sandbox: false } });
    expect(await problems()).toEqual(['single checks: 2 chargeable results, 1 charged']);
    await ctx.database.prisma.verification.deleteMany({ where: { email: verdict.email } });
    expect(await problems()).toEqual([]);
  });

  it('gives back a reservation whose work was never stored once its owner stops beating, once, and no sooner', async () => {
    const before = await accountUsage(ctx.database, ctx.account.id);
    const cause = newId('chk');
    const reservation = await reserve(ctx.database, ctx.account.id, 2, cause);
    expect(await sweepReservations(ctx.database, 60_000)).toBe(0);
    // past the bound, but this process (its owner) beats: lib/accounts/owners.ts
    expect(await sweepReservations(ctx.database, 0, Date.now() + 1)).toBe(0);
    expect((await accountUsage(ctx.database, ctx.account.id)).credits).toBe(before.credits - 2);
    // as seen once the owner has been silent for longer than ownerStaleMs() (30 s at most)
    expect(await sweepReservations(ctx.database, 0, Date.now() + 31_000)).toBe(1);
    expect(await sweepReservations(ctx.database, 0, Date.now() + 31_000)).toBe(0);
    expect((await accountUsage(ctx.database, ctx.account.id)).credits).toBe(before.credits);
    // the request that outlived its reservation cannot settle it again, nor store its result free
    expect(await refund(ctx.database, ctx.account.id, reservation, 0)).toBe(false);
    const late = sandboxVerdict('valid-late@example.com');
    await expect(recordSingle(ctx.database, ctx.account.id, late, false, false, { userId: ctx.account.id, ...reservation, charged: 2 })).rejects.toMatchObject({
      code: 'service_unavailable',
    });
    expect(await ctx.database.prisma.verification.count({ where: { email: 'valid-late@example.com' } })).toBe(0);
    expect(await kinds(cause)).toEqual(['reserve 2+0', 'charge 0+0', 'refund 2+0']);
    expect(await problems()).toEqual([]);
  });
});
