import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as bulk from '@/app/v1/verify/bulk/route';
import { withKeyToken } from '@/lib/accounts/causes';
import { grantCredits, reserve } from '@/lib/accounts/quota';
import { auditCredits } from '@/lib/accounts/audit';
import { keyAccess } from '@/lib/accounts/keys';
import { callerOf, claimKey, requestHash, type Claim } from '@/lib/api/idempotency';
import { addRule, deleteRule } from '@/lib/rules/store';
import { isChargeable } from '@/lib/results/chargeable';
import { DIALECTS } from '../databases';
import { call, setup } from './harness';

// Issue 29, item 7: an instant list (10 or fewer addresses) whose first attempt reserved and died;
// the retry of its Idempotency-Key takes that reservation over after the rules changed. It is
// settled for what the retry stored: the charge is the chargeable results of the attempt that
// stored them, never the first attempt's count.
const BULK = '/v1/verify/bulk';

describe.each(DIALECTS)('a retried instant list settles what it reserved (%s)', (dialect) => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  beforeAll(async () => {
    ctx = await setup(dialect, {
      EV_IDEMPOTENCY_STALE_MS: '1000',
      EV_PRODUCTION_ENGINE: 'sandbox',
      EV_ALLOW_PLACEHOLDER_IDENTITY: 'true',
      EV_EMBEDDED_WORKER: 'false',
      EV_FREE_DAILY: '0',
    });
    await grantCredits(ctx.database, ctx.account.id, 100);
  });
  afterAll(() => ctx.teardown());

  const credits = async () => (await ctx.database.prisma.user.findUniqueOrThrow({ where: { id: ctx.account.id } })).credits;
  const post = (idem: string, emails: string[]) =>
    call(bulk.POST, { key: ctx.key, body: { emails }, path: BULK, sandbox: false, headers: { 'idempotency-key': idem } });
  const charged = async (cause: string) => {
    const row = await ctx.database.prisma.creditMovement.findFirst({ where: { cause, kind: 'charge' } });
    return row ? row.credits + row.free : null;
  };

  /** The first attempt: claims the key (its heartbeat long stopped), reserves `count` under its token, and dies. */
  async function diedAfterReserving(idem: string, emails: string[], count: number): Promise<Claim> {
    const hash = requestHash(new Request(`http://localhost${BULK}`, { method: 'POST' }), false, Buffer.from(JSON.stringify({ emails })));
    const claim = (await claimKey(ctx.database, ctx.account.id, idem, hash, Date.now() - 5_000, callerOf(await keyAccess(ctx.database, ctx.key)))) as Claim;
    await withKeyToken(claim.token, false, () => reserve(ctx.database, ctx.account.id, count, `job_${claim.token}`));
    return claim;
  }

  it("charges the retry's chargeable results when a rule now decides some addresses", async () => {
    const emails = Array.from({ length: 5 }, (_, i) => `valid${i}@fewer.test`);
    const before = await credits();
    const claim = await diedAfterReserving('fewer-1', emails, 5);
    expect(await credits()).toBe(before - 5);
    // between the attempts a block rule comes to decide two of them (not chargeable)
    await addRule(ctx.database, ctx.account.id, { action: 'block', match: 'email', value: emails[0]! });
    await addRule(ctx.database, ctx.account.id, { action: 'block', match: 'email', value: emails[1]! });
    const retry = await post('fewer-1', emails);
    expect(retry.status, retry.text).toBe(200);
    expect(retry.json.job_id).toBe(`job_${claim.token}`);
    const chargeable = retry.json.results.filter((r: { status: string; reason: string }) => isChargeable(r as never)).length;
    expect(chargeable).toBe(3);
    expect(await charged(retry.json.job_id)).toBe(3);
    expect(await credits()).toBe(before - 3);
    expect((await auditCredits(ctx.database)).problems).toEqual([]);
  });

  it('gives the reservation back and answers 409 when the retry needs more than was reserved; the next retry runs and is charged once', async () => {
    const emails = Array.from({ length: 4 }, (_, i) => `valid${i}@more.test`);
    const rule = await addRule(ctx.database, ctx.account.id, { action: 'block', match: 'email', value: emails[0]! });
    const before = await credits();
    const claim = await diedAfterReserving('more-1', emails, 3);
    await deleteRule(ctx.database, ctx.account.id, rule.id);
    const retry = await post('more-1', emails);
    expect(retry.status, retry.text).toBe(409);
    expect(retry.json.message).toMatch(/reserved 3 verifications and this list now needs 4/);
    expect(await charged(`job_${claim.token}`)).toBe(0);
    expect(await credits()).toBe(before);
    expect(await ctx.database.prisma.job.count({ where: { id: `job_${claim.token}` } })).toBe(0);
    const again = await post('more-1', emails);
    expect(again.status, again.text).toBe(200);
    expect(await charged(again.json.job_id)).toBe(4);
    expect(await credits()).toBe(before - 4);
    expect((await auditCredits(ctx.database)).problems).toEqual([]);
  });
});
