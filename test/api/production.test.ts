import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as single from '@/app/v1/verify/single/route';
import * as bulk from '@/app/v1/verify/bulk/route';
import * as status from '@/app/v1/verify/bulk/status/[jobId]/route';
import * as history from '@/app/v1/history/route';
import * as account from '@/app/v1/account/route';
import { JobWorker } from '@/lib/jobs/worker/worker';
import { grantCredits } from '@/lib/accounts/quota';
import { createApiKey } from '@/lib/accounts/keys';
import { verifierFor } from '@/lib/checks/verifiers';
import { startDnsmasq, type DnsPeer } from '../peers/dnsmasq';
import { startPostfix, type PostfixPeer } from '../peers/postfix';
import { startTcpPeer, type TcpPeer } from '../peers/tcp';
import { call, setup } from './harness';

// Production mode end to end: route → quota → verifier core → real dnsmasq and Postfix on loopback.
const ZONE = [
  ...['example', 'catchall', 'grey'].flatMap((d) => [`mx-host=${d}.test,mx.${d}.test,10`, `host-record=mx.${d}.test,127.0.0.1`]),
  'mx-host=nullmx.test,.,0',
  'mx-host=silent.test,mx.silent.test,10',
  'host-record=mx.silent.test,127.0.0.2',
];

let dns: DnsPeer;
let postfix: PostfixPeer;
let silent: TcpPeer;
let ctx: Awaited<ReturnType<typeof setup>>;

function configure(extra: Record<string, string> = {}) {
  Object.assign(process.env, {
    EV_DNS_SERVERS: dns.server,
    EV_SMTP_PORT: String(postfix.port),
    EV_ALLOW_PRIVATE_NETWORKS: 'true',
    EV_ALLOW_PLACEHOLDER_IDENTITY: 'true',
    EV_SMTP_CONNECT_TIMEOUT_MS: '1000',
    EV_SMTP_COMMAND_TIMEOUT_MS: '1000',
    EV_GREYLIST_RETRY_MS: '300',
    EV_FREE_DAILY: '4',
    EV_RATE_LIMIT_PER_MINUTE: '1000',
    EV_VERIFY_DEADLINE_MS: '5000',
    EV_CHUNK_SIZE: '5',
    ...extra,
  });
}

beforeAll(async () => {
  dns = await startDnsmasq(ZONE);
  postfix = await startPostfix({
    mailboxes: ['alice@example.test', 'bob@grey.test', 'carl@grey.test'],
    catchAllDomains: ['catchall.test'],
    greylistDomains: ['grey.test'],
  });
  silent = await startTcpPeer('silent', '127.0.0.2', postfix.port);
  configure();
  ctx = await setup('sqlite');
});

afterAll(async () => {
  await ctx?.teardown();
  await silent?.stop();
  await postfix?.stop();
  await dns?.stop();
});

const free = async () => (await call(account.GET, { key: ctx.key, sandbox: false })).json;

describe('production mode against real DNS and SMTP', () => {
  it('verifies a mailbox with evidence, then serves it from cache without charging again', async () => {
    const first = await call(single.POST, { key: ctx.key, sandbox: false, body: { email: 'alice@example.test' } });
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({
      valid: true,
      deliverable: true,
      reason: 'accepted_email',
      risk_level: 'low',
      cached: false,
      sandbox: false,
      provider: 'example.test',
    });
    expect(first.json.evidence).toMatchObject({ mx_host: 'mx.example.test', smtp_code: 250 });
    expect(Number(first.headers.get('x-ratelimit-remaining'))).toBeLessThan(1000);
    expect(await free()).toMatchObject({ free_remaining_today: 3, used_today: 1 });
    const again = await call(single.POST, { key: ctx.key, sandbox: false, body: { email: 'alice@example.test' } });
    expect(again.json).toMatchObject({ deliverable: true, cached: true });
    expect(await free()).toMatchObject({ free_remaining_today: 3 });
    // the same mailbox spelt in another case is served from the cache too, for the address as asked
    const otherCase = await call(single.POST, { key: ctx.key, sandbox: false, body: { email: 'Alice@Example.TEST' } });
    expect(otherCase.json).toMatchObject({ email: 'Alice@Example.TEST', normalized_email: 'Alice@example.test', deliverable: true, cached: true });
    expect(await free()).toMatchObject({ free_remaining_today: 3 });
    const records = await call(history.GET, { key: ctx.key, sandbox: false, path: '/v1/history?email=alice@example.test' });
    expect(records.json.data.map((r: any) => [r.email, r.sandbox])).toEqual([
      ['Alice@Example.TEST', false],
      ['alice@example.test', false],
      ['alice@example.test', false],
    ]);
  });

  it('calls an unknown mailbox undeliverable and does not charge bad syntax or unknown answers', async () => {
    const nobody = await call(single.POST, { key: ctx.key, sandbox: false, body: { email: 'nobody@example.test' } });
    expect(nobody.json).toMatchObject({
      valid: false,
      deliverable: false,
      reason: 'rejected_email',
      evidence: { smtp_code: 550, smtp_enhanced_code: '5.1.1' },
    });
    expect(await free()).toMatchObject({ free_remaining_today: 2 });
    const syntax = await call(single.POST, { key: ctx.key, sandbox: false, body: { email: 'no at sign' } });
    expect(syntax.json.reason).toBe('invalid_email');
    const silentAnswer = await call(single.POST, { key: ctx.key, sandbox: false, body: { email: 'who@silent.test' } });
    expect(silentAnswer.json).toMatchObject({ status: 'unknown', risk_level: 'unknown' });
    expect(await free()).toMatchObject({ free_remaining_today: 2 });
  });

  it('runs out of free verifications, answers 402, then spends credits', async () => {
    await call(single.POST, { key: ctx.key, sandbox: false, body: { email: 'x1@catchall.test' } });
    await call(single.POST, { key: ctx.key, sandbox: false, body: { email: 'x2@catchall.test' } });
    expect(await free()).toMatchObject({ free_remaining_today: 0, credits: 0 });
    const refused = await call(single.POST, { key: ctx.key, sandbox: false, body: { email: 'x3@catchall.test' } });
    expect(refused.status).toBe(402);
    expect(refused.json).toMatchObject({ error: 'insufficient_credits', credits: 0 });
    const sandboxStillWorks = await call(single.POST, { key: ctx.key, body: { email: 'valid@x.com' } });
    expect(sandboxStillWorks.status).toBe(200);
    const bulkRefused = await call(bulk.POST, { key: ctx.key, sandbox: false, body: { emails: Array.from({ length: 12 }, (_, i) => `p${i}@example.test`) } });
    expect(bulkRefused.status).toBe(402);
    await grantCredits(ctx.database, ctx.account.id, 20);
    const paid = await call(single.POST, { key: ctx.key, sandbox: false, body: { email: 'x3@catchall.test' } });
    expect(paid.json).toMatchObject({ reason: 'accept_all', catch_all: true });
    expect(await free()).toMatchObject({ credits: 19 });
  });

  it('runs a production job through the worker: greylisting retried, unknowns refunded', async () => {
    const worker = new JobWorker(ctx.database, { concurrency: 4, leaseMs: 5000, pollMs: 20, verifierFor });
    worker.start();
    try {
      const emails = [
        'alice@example.test',
        'nobody@example.test',
        'bob@grey.test',
        'carl@grey.test',
        'a@catchall.test',
        'b@catchall.test',
        'x@nullmx.test',
        'y@silent.test',
        'bad address',
        'z@nxdomain.test',
        'alice@example.test',
        'info@example.test',
      ];
      const res = await call(bulk.POST, { key: ctx.key, sandbox: false, body: { emails } });
      expect(res.json).toMatchObject({ status: 'queued', total_emails: 12, valid_emails: 11, invalid_format_emails: 1, duplicate_emails: 1 });
      // alice is listed twice: verified and reserved once
      expect(await free()).toMatchObject({ credits: 19 - 10 });
      const jobId = res.json.job_id;
      let done: any;
      for (let i = 0; i < 300; i++) {
        done = await call(status.GET, { key: ctx.key, sandbox: false, params: { jobId } });
        if (done.json.status === 'completed') break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(done.json.status).toBe('completed');
      const byEmail = Object.fromEntries(done.json.data.results.map((r: any) => [r.email, r]));
      expect(byEmail['bob@grey.test']).toMatchObject({ status: 'deliverable' });
      expect(byEmail['carl@grey.test']).toMatchObject({ status: 'deliverable' });
      expect(byEmail['nobody@example.test']).toMatchObject({ status: 'undeliverable' });
      expect(byEmail['a@catchall.test']).toMatchObject({ status: 'catch-all' });
      expect(byEmail['x@nullmx.test']).toMatchObject({ status: 'undeliverable', reason: 'no_mx' });
      expect(byEmail['z@nxdomain.test']).toMatchObject({ reason: 'invalid_domain' });
      expect(byEmail['y@silent.test']).toMatchObject({ status: 'unknown' });
      expect(byEmail['bad address']).toMatchObject({ reason: 'invalid_email' });
      // 10 reserved; the silent server's unknown is given back.
      expect(await free()).toMatchObject({ credits: 19 - 9 });
    } finally {
      await worker.stop();
    }
  });

  it('finishes the work a job verifier was given after newer jobs push it out', async () => {
    configure({ EV_PER_DOMAIN_CONCURRENCY: '1' });
    try {
      const first = verifierFor(false, 'job_old');
      // One conversation at a time per MX host: five of these six wait in the verifier's queue.
      const locals = ['alice', 'nobody1', 'nobody2', 'nobody3', 'nobody4', 'nobody5'];
      const answers = locals.map((local) => first.verify(`${local}@example.test`));
      await answers[0]; // the other five are now queued behind it
      for (let i = 0; i < 40; i++) verifierFor(false, `job_new_${i}`);
      expect(verifierFor(false, 'job_old')).not.toBe(first);
      const verdicts = (await Promise.all(answers)).map((a) => a.verdict.status);
      expect(verdicts).toEqual(['deliverable', 'undeliverable', 'undeliverable', 'undeliverable', 'undeliverable', 'undeliverable']);
    } finally {
      configure();
    }
  });

  it('limits requests per key with 429 rate_limit and Retry-After', async () => {
    configure({ EV_RATE_LIMIT_PER_MINUTE: '3' });
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await call(account.GET, { key: ctx.key, sandbox: false }));
    // The window may already hold earlier requests of this test file: the last one must be refused.
    const refused = answers[3]!;
    expect(refused.status).toBe(429);
    expect(refused.json).toMatchObject({ error: 'rate_limit', retry_after: expect.any(Number) });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    const sandbox = await call(account.GET, { key: ctx.key });
    expect(sandbox.status).toBe(200);
    configure();
  });

  it('does not contact an MX on a private address unless allowed', async () => {
    configure({ EV_ALLOW_PRIVATE_NETWORKS: 'false' });
    // An address never asked before, so no cached answer hides the check.
    const fresh = await call(single.POST, { key: ctx.key, sandbox: false, body: { email: 'fresh@example.test' } });
    expect(fresh.status).toBe(200);
    expect(fresh.json).toMatchObject({ status: 'unknown', deliverable: false });
    expect(fresh.json.evidence?.smtp_code ?? null).toBeNull();
    configure();
  });

  it("answers a publishable key's page without the SMTP evidence, and charges it", async () => {
    const { key } = await createApiKey(ctx.database, ctx.account.id, { type: 'publishable', allowed_origins: ['https://shop.example'] });
    await grantCredits(ctx.database, ctx.account.id, 2);
    const before = (await free()).credits;
    const fromPage = await call(single.POST, {
      key: null,
      sandbox: false,
      path: `/v1/verify/single?key=${key}`,
      headers: { origin: 'https://shop.example' },
      body: { email: 'nobody9@example.test' },
    });
    expect(fromPage.json).toMatchObject({ status: 'undeliverable', reason: 'rejected_email', evidence: null });
    expect((await free()).credits).toBe(before - 1);
    // the same verdict to the secret key (from the cache, free) still shows what the server said
    const fromServer = await call(single.POST, { key: ctx.key, sandbox: false, body: { email: 'nobody9@example.test' } });
    expect(fromServer.json).toMatchObject({ cached: true, evidence: { smtp_code: 550 } });
  });
});
