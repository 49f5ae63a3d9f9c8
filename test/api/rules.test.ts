import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as rules from '@/app/v1/rules/route';
import * as ruleImport from '@/app/v1/rules/import/route';
import * as ruleById from '@/app/v1/rules/[id]/route';
import * as single from '@/app/v1/verify/single/route';
import * as bulk from '@/app/v1/verify/bulk/route';
import * as status from '@/app/v1/verify/bulk/status/[jobId]/route';
import * as account from '@/app/v1/account/route';
import { grantCredits } from '@/lib/accounts/quota';
import { JobWorker } from '@/lib/jobs/worker/worker';
import { verifierFor } from '@/lib/checks/verifiers';
import { DIALECTS } from '../databases';
import { startDnsmasq, type DnsPeer } from '../peers/dnsmasq';
import { startScriptedSmtp, type ScriptedSmtp } from '../peers/scripted-smtp';
import { call, setup, until } from './harness';

// Rules decide before any probe, in both modes, through single checks, instant lists and the
// worker's chunks: real DNS (dnsmasq) and a scripted mail server that records every RCPT.
const ZONE = [
  'mx-host=gated.test,mx1.gateway.test,10',
  'host-record=mx1.gateway.test,127.0.0.1',
  'mx-host=open.test,mx.open.test,10',
  'host-record=mx.open.test,127.0.0.1',
  'mx-host=blocked.test,mx.blocked.test,10',
  'host-record=mx.blocked.test,127.0.0.1',
];

let dns: DnsPeer;
let smtp: ScriptedSmtp;

beforeAll(async () => {
  dns = await startDnsmasq(ZONE, ['test', 'zz']); // .zz answered here (NXDOMAIN): a TLD rule decides once DNS has named no MX host
  smtp = await startScriptedSmtp({ rcpt: (address) => (/^<?ok/.test(address) ? '250 2.1.5 OK' : '550 5.1.1 No such user') });
});
afterAll(async () => {
  await smtp?.stop();
  await dns?.stop();
});

/** The recipients the mail server was asked about, without the catch-all probes. */
const asked = () => smtp.commands.filter((c) => /^RCPT TO:<(?![0-9a-f]{16}@)/i.test(c.line)).map((c) => c.line.slice(9, -1).toLowerCase());

describe.each(DIALECTS)('allow and block rules on %s', (dialect) => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  let worker: JobWorker;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    ctx = await setup(dialect, {
      EV_DNS_SERVERS: dns.server,
      EV_SMTP_PORT: String(smtp.port),
      EV_ALLOW_PRIVATE_NETWORKS: 'true',
      EV_ALLOW_PLACEHOLDER_IDENTITY: 'true',
      EV_SMTP_CONNECT_TIMEOUT_MS: '1000',
      EV_SMTP_COMMAND_TIMEOUT_MS: '1000',
      EV_FREE_DAILY: '0',
      EV_CHUNK_SIZE: '5',
      EV_MAX_RULES_PER_ACCOUNT: '8',
      EV_RATE_LIMIT_PER_MINUTE: '1000',
      EV_CREATE_RATE_PER_MINUTE: '1000',
    });
    worker = new JobWorker(ctx.database, { concurrency: 4, leaseMs: 5000, pollMs: 20, verifierFor });
    worker.start();
  });
  afterAll(async () => {
    await worker.stop();
    await ctx.teardown();
  });

  const add = (action: string, match: string, value: string) => call(rules.POST, { key: ctx.key, body: { action, match, value } });
  const credits = async () => (await call(account.GET, { key: ctx.key, sandbox: false })).json.credits as number;
  const check = (email: string, sandbox: boolean) => call(single.POST, { key: ctx.key, sandbox, body: { email } });

  it('stores rules normalised, once, under the account cap, and deletes them', async () => {
    const vip = await add('allow', 'email', ' VIP@Blocked.TEST ');
    expect(vip.status).toBe(201);
    expect(vip.json).toMatchObject({ action: 'allow', match: 'email', value: 'vip@blocked.test' });
    expect((await add('allow', 'email', 'vip@blocked.test')).json.id).toBe(vip.json.id); // already there: answered as it is
    const bad = await add('block', 'domain', 'not a domain');
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ error: 'invalid_request', param: 'value' });
    const imported = await call(ruleImport.POST, {
      key: ctx.key,
      body: {
        rules: [
          { action: 'block', match: 'domain', value: 'blocked.test' },
          { action: 'block', match: 'tld', value: '.ZZ' },
          { action: 'allow', match: 'tld', value: 'zz' },
          { action: 'allow', match: 'mx', value: 'gateway.test' },
          { action: 'block', match: 'email', value: 'ok.spam@open.test' },
        ],
      },
    });
    expect(imported.status).toBe(200);
    expect(imported.json.created).toBe(5);
    expect(imported.json.data.map((r: any) => r.value)).toEqual(['blocked.test', 'zz', 'zz', 'gateway.test', 'ok.spam@open.test']);
    for (const rule of [vip.json, ...imported.json.data]) ids[`${rule.action} ${rule.match} ${rule.value}`] = rule.id;
    // 6 held, cap 8: three more would pass it, and none of them is added
    const over = await call(ruleImport.POST, {
      key: ctx.key,
      body: { rules: ['a.test', 'b.test', 'c.test'].map((value) => ({ action: 'block', match: 'domain', value })) },
    });
    expect(over.status).toBe(409);
    expect(over.json).toMatchObject({ error: 'limit_reached', limit: 8 });
    const extra = await add('block', 'domain', 'gone.test');
    expect((await call(ruleById.DELETE, { key: ctx.key, params: { id: extra.json.id } })).json).toEqual({ success: true, id: extra.json.id, deleted: true });
    expect((await call(ruleById.DELETE, { key: ctx.key, params: { id: extra.json.id } })).status).toBe(404);
    expect((await call(rules.GET, { key: ctx.key })).json.data).toHaveLength(6);
  });

  it.each([true, false])('decides single checks before any probe, uncharged (sandbox: %s)', async (sandbox) => {
    const before = { credits: await credits(), asked: asked().length };
    // no credits and no free checks: only a rule can answer without a 402
    const blocked = await check('valid.someone@Blocked.test', sandbox);
    expect(blocked.json).toMatchObject({
      status: 'undeliverable',
      deliverable: false,
      reason: 'blocklisted',
      rule_id: ids['block domain blocked.test'],
      evidence: null,
      sandbox,
    });
    // the address is more specific than its domain
    const vip = await check('Vip@blocked.test', sandbox);
    expect(vip.json).toMatchObject({ status: 'deliverable', deliverable: true, reason: 'allowlisted', rule_id: ids['allow email vip@blocked.test'] });
    // at one level a block beats an allow
    expect((await check('anyone@shop.zz', sandbox)).json).toMatchObject({ reason: 'blocklisted', rule_id: ids['block tld zz'] });
    expect((await check('ok.spam@open.test', sandbox)).json).toMatchObject({ reason: 'blocklisted' });
    expect(await credits()).toBe(before.credits);
    expect(asked().length).toBe(before.asked);
  });

  it('applies an MX rule once DNS named the MX hosts, and gives the reservation back', async () => {
    await grantCredits(ctx.database, ctx.account.id, 1);
    const gated = await check('someone@gated.test', false);
    expect(gated.json).toMatchObject({ status: 'deliverable', reason: 'allowlisted', rule_id: ids['allow mx gateway.test'], mailbox_provider: null });
    expect(await credits()).toBe(1);
    // an address no rule names is probed and charged as ever
    expect((await check('ok.real@open.test', false)).json).toMatchObject({ status: 'deliverable', reason: 'accepted_email', rule_id: null });
    expect(await credits()).toBe(0);
    expect(asked()).not.toContain('someone@gated.test');
    // the sandbox has no DNS: an address's MX host is mx.<its domain>
    expect((await check('valid.x@gateway.test', true)).json).toMatchObject({ reason: 'allowlisted', rule_id: ids['allow mx gateway.test'] });
  });

  it('answers an instant production list of ruled addresses without a credit', async () => {
    const res = await call(bulk.POST, { key: ctx.key, sandbox: false, body: { emails: ['a@blocked.test', 'vip@blocked.test', 'b@c.zz'] } });
    expect(res.status).toBe(200);
    expect(res.json.results.map((r: any) => [r.reason, r.rule_id])).toEqual([
      ['blocklisted', ids['block domain blocked.test']],
      ['allowlisted', ids['allow email vip@blocked.test']],
      ['blocklisted', ids['block tld zz']],
    ]);
    expect(res.json.summary).toMatchObject({ deliverable: 1, undeliverable: 2 });
  });

  it.each([true, false])('rules a queued list in the worker, charging only the probed addresses (sandbox: %s)', async (sandbox) => {
    // the sandbox takes gateway.test's MX host to be mx.gateway.test; DNS names mx1.gateway.test for gated.test
    const ruled = [
      'x1@blocked.test',
      'x2@blocked.test',
      'vip@blocked.test',
      'x3@shop.zz',
      sandbox ? 'x4@gateway.test' : 'x4@gated.test',
      'ok.spam@open.test',
      'x5@blocked.test',
      'x6@blocked.test',
      'x7@blocked.test',
      'x8@blocked.test',
    ];
    const probed = ['ok.one@open.test', 'nobody@open.test'];
    if (!sandbox) await grantCredits(ctx.database, ctx.account.id, 12); // reserved up front, the ruled part given back at the end
    const res = await call(bulk.POST, { key: ctx.key, sandbox, body: { emails: [...ruled, ...probed] } });
    expect(res.json.status).toBe('queued');
    const done = await until(
      () => call(status.GET, { key: ctx.key, sandbox, params: { jobId: res.json.job_id } }),
      (r) => r.json.status === 'completed',
    );
    const results = done.json.data.results as any[];
    expect(results.slice(0, ruled.length).map((r) => r.reason)).toEqual([
      'blocklisted',
      'blocklisted',
      'allowlisted',
      'blocklisted',
      'allowlisted',
      'blocklisted',
      'blocklisted',
      'blocklisted',
      'blocklisted',
      'blocklisted',
    ]);
    expect(results[4].rule_id).toBe(ids['allow mx gateway.test']);
    expect(results.slice(ruled.length).map((r) => r.rule_id)).toEqual([null, null]);
    if (sandbox) return;
    expect(results.slice(ruled.length).map((r) => r.reason)).toEqual(['accepted_email', 'rejected_email']);
    expect(await credits()).toBe(10); // the two probed addresses were charged
    for (const email of ruled) expect(asked()).not.toContain(email);
  });
});

describe.each(DIALECTS)('a full import on %s', (dialect) => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  beforeAll(async () => {
    ctx = await setup(dialect, { EV_MAX_RULES_PER_ACCOUNT: '10000' });
  });
  afterAll(() => ctx.teardown());

  it('takes the most one request may hold (1,000 rules) at once, and again without adding any', async () => {
    const many = Array.from({ length: 1000 }, (_, i) => ({ action: i % 2 ? 'allow' : 'block', match: 'email', value: `user${i}@many.test` }));
    const first = await call(ruleImport.POST, { key: ctx.key, body: { rules: many } });
    expect(first.json).toMatchObject({ success: true, created: 1000 });
    const again = await call(ruleImport.POST, { key: ctx.key, body: { rules: many } });
    expect(again.json.created).toBe(0);
    expect(again.json.data.map((r: any) => r.id)).toEqual(first.json.data.map((r: any) => r.id));
    expect((await call(ruleImport.POST, { key: ctx.key, body: { rules: [...many, many[0]] } })).status).toBe(400); // 1,001
  });
});
