import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { pauseAt } from '@/lib/failpoints/failpoints';
import { submitBulk, submitQueued } from '@/lib/jobs/intake/submit';
import { JobWorker } from '@/lib/jobs/worker/worker';
import { finishJobIfDone } from '@/lib/jobs/worker/lifecycle';
import { verifierFor } from '@/lib/checks/verifiers';
import { newId } from '@/lib/db/ids';
import { withKeyToken } from './causes';
import { q } from '@/lib/db/sql';
import { DIALECTS } from '@/test/databases';
import { setup } from '@/test/api/harness';
import { auditCredits } from './audit';
import { settleIn } from './ledger';
import { beatNow, pendingSettlements } from './owners';
import { grantCredits, jobReservation, refund, reserve } from './quota';
import { sweepReservations } from './sweeper';

// Issue 29, item 6: reservations with a live owner. The sweeper never takes back a reservation whose
// job is still being written, however small EV_RESERVATION_TIMEOUT_MS is; a dead owner's come back
// within a minute; a refund or charge that fails is retried, never dropped.
describe.each(DIALECTS)('reservations with an owner (%s)', (dialect) => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  beforeAll(async () => {
    ctx = await setup(dialect, {
      EV_PRODUCTION_ENGINE: 'sandbox',
      EV_ALLOW_PLACEHOLDER_IDENTITY: 'true',
      EV_FREE_DAILY: '0',
      EV_CHUNK_SIZE: '10',
      EV_RESERVATION_TIMEOUT_MS: '1',
    });
    await grantCredits(ctx.database, ctx.account.id, 1000);
  });
  afterAll(() => ctx?.teardown());

  const credits = async () => (await ctx.database.prisma.user.findUniqueOrThrow({ where: { id: ctx.account.id } })).credits;
  const kinds = async (cause: string) =>
    (await ctx.database.prisma.creditMovement.findMany({ where: { cause }, orderBy: { id: 'asc' } })).map((m) => `${m.kind} ${m.credits}+${m.free}`);

  it('never takes back the reservation of a job being written, at EV_RESERVATION_TIMEOUT_MS=1; the job runs and is charged what it stored', async () => {
    const before = await credits();
    const emails = Array.from({ length: 30 }, (_, i) => `valid${i}@inserting.test`);
    const pause = pauseAt('job.before-insert');
    const submitting = submitQueued(ctx.database, { userId: ctx.account.id, sandbox: false, emails });
    await pause.reached;
    expect(await credits()).toBe(before - 30);
    // the sweeper runs while the job row is not there yet, its bound long past
    await new Promise((r) => setTimeout(r, 20));
    expect(await sweepReservations(ctx.database, 1)).toBe(0);
    pause.resume();
    const { jobId } = await submitting;
    const worker = new JobWorker(ctx.database, { concurrency: 4, leaseMs: 5000, pollMs: 20, verifierFor });
    worker.start();
    try {
      for (let i = 0; i < 300 && (await ctx.database.prisma.job.findUniqueOrThrow({ where: { id: jobId } })).status !== 'completed'; i++)
        await new Promise((r) => setTimeout(r, 50));
    } finally {
      await worker.stop();
    }
    expect((await ctx.database.prisma.job.findUniqueOrThrow({ where: { id: jobId } })).status).toBe('completed');
    expect(await kinds(jobId)).toEqual(['reserve 30+0', 'charge 30+0']);
    expect(await credits()).toBe(before - 30);
    expect((await auditCredits(ctx.database)).problems).toEqual([]);
  }, 60_000);

  it("gives back a dead owner's reservation once it stops beating, long before EV_RESERVATION_TIMEOUT_MS, and not a live owner's", async () => {
    process.env.EV_RESERVATION_TIMEOUT_MS = '600000';
    try {
      const before = await credits();
      // a process that reserves and is killed at once (SIGKILL at quota.after-reserve)
      const script = `
        import { openDatabase } from './lib/db/client.ts';
        import { reserve } from './lib/accounts/quota.ts';
        const database = await openDatabase(process.env.DATABASE_URL);
        await reserve(database, ${JSON.stringify(ctx.account.id)}, 3, 'chk_deadowner');`;
      const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        env: { ...process.env, EV_TEST_FAILPOINTS: 'quota.after-reserve' },
        encoding: 'utf8',
      });
      expect(child.signal, child.stderr).toBe('SIGKILL');
      const live = newId('chk');
      await reserve(ctx.database, ctx.account.id, 2, live);
      expect(await credits()).toBe(before - 5);
      // within its owner's heartbeat bound (30 s with this EV_RESERVATION_TIMEOUT_MS) nothing goes back
      expect(await sweepReservations(ctx.database)).toBe(0);
      // 31 s of silence from the dead process (its last beat moved back); this process beats on
      const [dead] = await ctx.database.prisma.creditMovement.findMany({ where: { cause: 'chk_deadowner', kind: 'reserve' } });
      await ctx.database.prisma.$executeRawUnsafe(q(dialect, 'UPDATE ledger_owners SET heartbeat_at = heartbeat_at - 31000 WHERE owner = ?'), dead!.owner);
      await beatNow(ctx.database);
      expect(await sweepReservations(ctx.database)).toBe(1);
      expect(await kinds('chk_deadowner')).toEqual(['reserve 3+0', 'charge 0+0', 'refund 3+0']);
      expect(await kinds(live)).toEqual(['reserve 2+0']);
      expect(await credits()).toBe(before - 2);
      await refund(ctx.database, ctx.account.id, { cause: live, day: '', free: 0, credits: 2 }, 2);
      expect((await auditCredits(ctx.database)).problems).toEqual([]);
    } finally {
      process.env.EV_RESERVATION_TIMEOUT_MS = '1';
    }
  }, 60_000);

  it("a retry that takes a dead attempt's reservation over keeps it from the sweeper; one the sweeper took first is not taken over", async () => {
    process.env.EV_RESERVATION_TIMEOUT_MS = '600000';
    try {
      // two reservations of a process that died a minute ago
      await ctx.database.prisma.$executeRawUnsafe(q(dialect, 'INSERT INTO ledger_owners (owner, heartbeat_at) VALUES (?, ?)'), 'own_gone', Date.now() - 60_000);
      const [adopted, swept] = [newId('tok'), newId('tok')];
      for (const token of [adopted, swept]) {
        await withKeyToken(token, false, () => reserve(ctx.database, ctx.account.id, 1, `chk_${token}`));
        await ctx.database.prisma.$executeRawUnsafe(q(dialect, `UPDATE credit_ledger SET owner = 'own_gone' WHERE cause = ?`), `chk_${token}`);
      }
      // a retry of the first key takes its reservation over, then the sweeper runs: it is not given back
      const taken = await withKeyToken(adopted, true, () => reserve(ctx.database, ctx.account.id, 1, `chk_${adopted}`));
      expect(taken.adopted).toBe(true);
      expect(await sweepReservations(ctx.database)).toBe(1);
      expect(await kinds(`chk_${adopted}`)).toEqual(['reserve 1+0']);
      // the second was swept first: its retry does not take a settled reservation over
      expect(await kinds(`chk_${swept}`)).toEqual(['reserve 1+0', 'charge 0+0', 'refund 1+0']);
      await expect(withKeyToken(swept, true, () => reserve(ctx.database, ctx.account.id, 1, `chk_${swept}`))).rejects.toMatchObject({ code: 'conflict' });
      await refund(ctx.database, ctx.account.id, taken, 1);
      expect((await auditCredits(ctx.database)).problems).toEqual([]);
    } finally {
      process.env.EV_RESERVATION_TIMEOUT_MS = '1';
    }
  });

  it("an instant list whose storing fails gives its reservation back at once (a live owner's are never swept)", async () => {
    const before = await credits();
    const token = newId('tok');
    // a job row already holds the id the list's job would get: its storing transaction fails
    await ctx.database.prisma.job.create({
      data: {
        id: `job_${token}`,
        userId: ctx.account.id,
        sandbox: true,
        status: 'completed',
        totalEmails: 0,
        validEmails: 0,
        invalidEmails: 0,
        duplicateEmails: 0,
      },
    });
    const emails = Array.from({ length: 3 }, (_, i) => `valid${i}@storefails.test`);
    await expect(
      withKeyToken(token, false, () => submitBulk(ctx.database, { userId: ctx.account.id, sandbox: false, emails }, async () => {})),
    ).rejects.toThrow();
    expect(await kinds(`job_${token}`)).toEqual(['reserve 3+0', 'charge 0+0', 'refund 3+0']);
    expect(await credits()).toBe(before);
    expect((await auditCredits(ctx.database)).problems).toEqual([]);
  });

  it('retries a refund that failed until it is written', async () => {
    const before = await credits();
    const cause = newId('chk');
    const reservation = await reserve(ctx.database, ctx.account.id, 4, cause);
    const spy = vi.spyOn(ctx.database.prisma, '$transaction').mockRejectedValueOnce(new Error('connection lost'));
    await expect(refund(ctx.database, ctx.account.id, reservation, 4)).rejects.toThrow('connection lost');
    spy.mockRestore();
    expect(await credits()).toBe(before - 4);
    expect(await pendingSettlements(ctx.database)).toBe(1);
    await beatNow(ctx.database);
    expect(await pendingSettlements(ctx.database)).toBe(0);
    expect(await kinds(cause)).toEqual(['reserve 4+0', 'charge 0+0', 'refund 4+0']);
    expect(await credits()).toBe(before);
  });

  it('does not finish a job whose reservation was settled behind its back: the error is kept and the finish tried again', async () => {
    const emails = Array.from({ length: 12 }, (_, i) => `valid${i}@settled.test`);
    const { jobId } = await submitQueued(ctx.database, { userId: ctx.account.id, sandbox: false, emails });
    const job = await ctx.database.prisma.job.findUniqueOrThrow({ where: { id: jobId } });
    await ctx.database.prisma.$transaction((tx) => settleIn(tx, dialect, [{ userId: ctx.account.id, ...jobReservation(job), charged: 0 }]));
    await ctx.database.prisma.$executeRawUnsafe(q(dialect, `UPDATE job_chunks SET state = 'done' WHERE job_id = ?`), jobId);
    await expect(finishJobIfDone(ctx.database, jobId)).rejects.toThrow(/settled before the job ended/);
    expect((await ctx.database.prisma.job.findUniqueOrThrow({ where: { id: jobId } })).status).toBe('queued');
    await ctx.database.prisma.job.delete({ where: { id: jobId } });
  });
});
