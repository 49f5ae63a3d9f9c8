import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '@/test/databases';
import { setup } from '@/test/api/harness';
import { readMigrations } from '@/lib/db/migrate';
import { cancelJob } from '@/lib/jobs/worker/lifecycle';
import { utcDay } from './day';
import { accountUsage } from './quota';
import { auditCredits } from './audit';

// An account from before the ledger: credits, free verifications used today, and an unfinished job
// holding a reservation. The migration's opening balances make its books hold, and the old job
// still settles through the ledger when it ends.
describe.each(DIALECTS)('opening balances of accounts older than the ledger (%s)', (dialect) => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  beforeAll(async () => {
    ctx = await setup(dialect, { EV_FREE_DAILY: '10' });
  });
  afterAll(() => ctx.teardown());

  it('opens each account so that the audit holds, and settles an old job later', async () => {
    const { prisma } = ctx.database;
    const day = utcDay();
    await prisma.user.update({ where: { id: ctx.account.id }, data: { credits: 50 } });
    await prisma.usageDay.create({ data: { userId: ctx.account.id, day, used: 7 } });
    await prisma.job.create({
      data: {
        id: 'job_legacy',
        userId: ctx.account.id,
        sandbox: false,
        status: 'processing',
        totalEmails: 5,
        validEmails: 5,
        invalidEmails: 0,
        reservedDay: day,
        reservedFree: 2,
        reservedCredits: 3,
      },
    });
    expect((await auditCredits(ctx.database)).problems).not.toEqual([]);
    const migration = readMigrations(dialect).find((m) => m.name.endsWith('_credit_ledger'))!;
    for (const step of migration.sql
      .split(/;\s*\n/)
      .map((s) => s.replace(/^\s*--.*$/gm, '').trim())
      .filter((s) => s.startsWith('INSERT'))) {
      await prisma.$executeRawUnsafe(step);
    }
    expect((await auditCredits(ctx.database)).problems).toEqual([]);
    await cancelJob(ctx.database, ctx.account.id, 'job_legacy', false);
    expect(await accountUsage(ctx.database, ctx.account.id)).toMatchObject({ credits: 53, usedToday: 5 });
    expect((await auditCredits(ctx.database)).problems).toEqual([]);
  });
});
