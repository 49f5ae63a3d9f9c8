import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as bulk from '@/app/v1/verify/bulk/route';
import { withKeyToken } from '@/lib/accounts/causes';
import { grantCredits } from '@/lib/accounts/quota';
import { auditCredits } from '@/lib/accounts/audit';
import { keyAccess } from '@/lib/accounts/keys';
import { callerOf, claimKey, requestHash, type Claim } from '@/lib/api/idempotency';
import { submitQueued } from '@/lib/jobs/intake/submit';
import { DIALECTS } from '../databases';
import { call, setup } from './harness';

// A queued submission whose process died after writing the job and before keeping the answer: the
// retry of its Idempotency-Key, once the key's heartbeat is older than EV_IDEMPOTENCY_STALE_MS,
// answers with that job instead of writing and charging a second one (docs/guarantees.md).
const EMAILS = Array.from({ length: 15 }, (_, i) => `valid${i}@x.com`);
const BULK = '/v1/verify/bulk';

describe.each(DIALECTS)('an Idempotency-Key whose request died (%s)', (dialect) => {
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

  const hash = requestHash(new Request(`http://localhost${BULK}`, { method: 'POST' }), false, Buffer.from(JSON.stringify({ emails: EMAILS })));
  const post = (idem: string) => call(bulk.POST, { key: ctx.key, body: { emails: EMAILS }, path: BULK, sandbox: false, headers: { 'idempotency-key': idem } });
  const credits = async () => (await ctx.database.prisma.user.findUniqueOrThrow({ where: { id: ctx.account.id } })).credits;

  /** The first attempt: claims the key at `at`, queues the job under its token, and dies before answering. */
  async function diedAfterQueueing(idem: string, at: number): Promise<Claim> {
    // the key's own namespace: the retry below comes with the same key (Idempotency-Keys are per caller)
    const claim = (await claimKey(ctx.database, ctx.account.id, idem, hash, at, callerOf(await keyAccess(ctx.database, ctx.key)))) as Claim;
    expect(claim.takeover).toBe(false);
    await withKeyToken(claim.token, false, () => submitQueued(ctx.database, { userId: ctx.account.id, sandbox: false, emails: EMAILS }));
    return claim;
  }

  it("answers 409 while the dead request's heartbeat is within the bound", async () => {
    await diedAfterQueueing('fresh-1', Date.now());
    const busy = await post('fresh-1');
    expect(busy.status).toBe(409);
    expect(busy.json.message).toMatch(/in progress/);
  });

  it('takes the key over after the bound and answers with the job the first attempt queued, charged once', async () => {
    const before = await credits();
    const claim = await diedAfterQueueing('dead-1', Date.now() - 5_000);
    expect(await credits()).toBe(before - EMAILS.length);
    const retry = await post('dead-1');
    expect(retry.status, retry.text).toBe(200);
    expect(retry.json.job_id).toBe(`job_${claim.token}`);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    const replay = await post('dead-1');
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.json.job_id).toBe(retry.json.job_id);
    expect(await ctx.database.prisma.job.count({ where: { id: retry.json.job_id } })).toBe(1);
    expect(await credits()).toBe(before - EMAILS.length);
    expect(await ctx.database.prisma.creditMovement.count({ where: { cause: retry.json.job_id } })).toBe(1);
    expect((await auditCredits(ctx.database)).problems).toEqual([]);
  });

  it('lets only one of two simultaneous retries take a dead key over', async () => {
    const before = await credits();
    await diedAfterQueueing('dead-2', Date.now() - 5_000);
    const answers = await Promise.all([post('dead-2'), post('dead-2'), post('dead-2')]);
    // one runs; the others find it running (409) or, once it answered, get its answer replayed; a
    // third at once may find the account's heavy-request slots taken (429, nothing written: docs/limits.md)
    expect(answers.filter((a) => a.status === 200 && a.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    for (const a of answers) expect([200, 409, 429]).toContain(a.status);
    expect(await credits()).toBe(before - EMAILS.length);
  });
});
