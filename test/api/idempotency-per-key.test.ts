import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as keys from '@/app/v1/keys/route';
import * as single from '@/app/v1/verify/single/route';
import { grantCredits } from '@/lib/accounts/quota';
import { createApiKey } from '@/lib/accounts/keys';
import { requestHash } from '@/lib/api/idempotency';
import { recordSingle } from '@/lib/results/history';
import { sandboxVerdict } from '@/lib/verifier/sandbox';
import { DIALECTS } from '../databases';
import { call, setup } from './harness';

// Item 4 of issue 29: Idempotency-Keys are per API key (and the dashboard's session), so a widget
// visitor with the publishable key can neither take a key name the owner's server uses nor get back
// the owner's answer with the `evidence` its own answers leave out; a replay never shows more than
// the replaying key may see, also for rows written before keys were per caller.
const SHOP = 'https://shop.example';
// an earlier production check of the account, with the mail server's words: served from the cache
// to the owner with them and to the widget without (the sandbox engine adds no evidence of its own)
const EVIDENCE = {
  mx_host: 'mx.shop.test',
  smtp_code: 250,
  smtp_enhanced_code: '2.1.5',
  smtp_message: '2.1.5 OK',
  smtp_failure: null,
  attempts: 1,
  tls: false,
  dns_failure: null,
  control_code: 550,
  control_enhanced_code: '5.1.1',
  control_message: '5.1.1 No such user',
  postmaster_code: null,
  postmaster_message: null,
};

describe.each(DIALECTS)('Idempotency-Keys per key (%s)', (dialect) => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  let pub: string;

  beforeAll(async () => {
    ctx = await setup(dialect, { EV_TRUST_PROXY: '1', EV_PRODUCTION_ENGINE: 'sandbox', EV_FREE_DAILY: '100' });
    await grantCredits(ctx.database, ctx.account.id, 100);
    pub = (await createApiKey(ctx.database, ctx.account.id, { type: 'publishable', name: 'form', allowed_origins: [SHOP] })).key;
    for (const email of ['alice@shop.test', 'bob@shop.test'])
      await recordSingle(ctx.database, ctx.account.id, { ...sandboxVerdict(email), evidence: EVIDENCE }, false, false);
  });
  afterAll(() => ctx?.teardown());

  const byOwner = (idem: string, email: string) =>
    call(single.POST, { key: ctx.key, sandbox: false, path: '/v1/verify/single', body: { email }, headers: { 'idempotency-key': idem } });
  const byWidget = (idem: string, email: string) =>
    call(single.POST, {
      key: null,
      sandbox: false,
      path: `/v1/verify/single?key=${pub}`,
      body: { email },
      headers: { origin: SHOP, 'x-forwarded-for': '198.51.100.4', 'idempotency-key': idem },
    });

  it("a widget visitor cannot take a key name first: the owner's request runs", async () => {
    expect((await byWidget('signup-1', 'alice@shop.test')).status).toBe(200);
    const owner = await byOwner('signup-1', 'bob@shop.test');
    expect(owner.status).toBe(200); // was 422 idempotency_key_reused
    expect(owner.headers.get('idempotent-replayed')).toBeNull();
    expect(owner.json).toMatchObject({ email: 'bob@shop.test', evidence: EVIDENCE });
  });

  it("the owner's answer is never replayed to the widget; each key replays its own", async () => {
    const owner = await byOwner('lead-7', 'alice@shop.test');
    expect(owner.json.evidence).toEqual(EVIDENCE);
    const widget = await byWidget('lead-7', 'alice@shop.test');
    expect(widget.status).toBe(200);
    expect(widget.headers.get('idempotent-replayed')).toBeNull(); // was the owner's stored answer, evidence and all
    expect(widget.json.evidence).toBeNull();
    const widgetAgain = await byWidget('lead-7', 'alice@shop.test');
    expect(widgetAgain.headers.get('idempotent-replayed')).toBe('true');
    expect(widgetAgain.json.evidence).toBeNull();
    const ownerAgain = await byOwner('lead-7', 'alice@shop.test');
    expect(ownerAgain.headers.get('idempotent-replayed')).toBe('true');
    expect(ownerAgain.json).toEqual(owner.json);
  });

  it('a row from before keys were per caller is still replayed, as the replaying key may see it', async () => {
    const body = Buffer.from(JSON.stringify({ email: 'alice@shop.test' }));
    const hash = requestHash(new Request('http://localhost/v1/verify/single', { method: 'POST' }), false, body);
    const stored = (await byOwner('stored-answer', 'alice@shop.test')).json;
    await ctx.database.prisma.idempotencyKey.create({
      data: {
        userId: ctx.account.id,
        caller: '',
        key: 'old-1',
        requestHash: hash,
        state: 'done',
        responseStatus: 200,
        responseBody: JSON.stringify(stored),
        createdAt: BigInt(Date.now()),
      },
    });
    const widget = await byWidget('old-1', 'alice@shop.test');
    expect(widget.headers.get('idempotent-replayed')).toBe('true');
    expect(widget.json).toEqual({ ...stored, evidence: null });
    const owner = await byOwner('old-1', 'alice@shop.test');
    expect(owner.json).toEqual(stored);
  });

  it('a replayed new key goes only to a key it does not exceed', async () => {
    const made = await call(keys.POST, { key: ctx.key, path: '/v1/keys', body: { name: 'full' }, headers: { 'idempotency-key': 'make-1' } });
    const hash = requestHash(new Request('http://localhost/v1/keys', { method: 'POST' }), true, Buffer.from(JSON.stringify({ name: 'full' })));
    await ctx.database.prisma.idempotencyKey.create({
      data: {
        userId: ctx.account.id,
        caller: '',
        key: 'make-1',
        requestHash: hash,
        state: 'done',
        responseStatus: 201,
        responseBody: JSON.stringify(made.json),
        createdAt: BigInt(Date.now()),
      },
    });
    const narrow = (await createApiKey(ctx.database, ctx.account.id, { name: 'keys only', scopes: ['keys'] })).key;
    const replay = await call(keys.POST, { key: narrow, path: '/v1/keys', body: { name: 'full' }, headers: { 'idempotency-key': 'make-1' } });
    expect(replay.status).toBe(403);
    expect(replay.json).toMatchObject({ error: 'insufficient_scope', param: 'Idempotency-Key' });
    expect(replay.text).not.toContain(made.json.key);
  });
});
