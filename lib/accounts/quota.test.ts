import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '@/test/databases';
import { setup } from '@/test/api/harness';
import { newId } from '@/lib/db/ids';
import { accountUsage, grantCredits, reserve } from './quota';

describe.each(DIALECTS)('quota reservations (%s)', (dialect) => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  beforeAll(async () => {
    ctx = await setup(dialect, { EV_FREE_DAILY: '4' });
  });
  afterAll(() => ctx.teardown());

  it('serves concurrent requests for the last free verifications, each charged once, none refused', async () => {
    await grantCredits(ctx.database, ctx.account.id, 20);
    const reservations = await Promise.all(Array.from({ length: 10 }, () => reserve(ctx.database, ctx.account.id, 1, newId('chk'))));
    expect(reservations.reduce((n, r) => n + r.free, 0)).toBe(4);
    expect(reservations.reduce((n, r) => n + r.credits, 0)).toBe(6);
    expect(await accountUsage(ctx.database, ctx.account.id)).toMatchObject({ freeRemainingToday: 0, usedToday: 4, credits: 14 });
  });

  it('refuses what neither the free verifications nor the credits cover, and takes nothing', async () => {
    await expect(reserve(ctx.database, ctx.account.id, 15, newId('chk'))).rejects.toMatchObject({
      code: 'insufficient_credits',
      extra: { required: 15, credits: 14 },
    });
    expect(await accountUsage(ctx.database, ctx.account.id)).toMatchObject({ usedToday: 4, credits: 14 });
  });
});
