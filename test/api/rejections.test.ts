import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as single from '@/app/v1/verify/single/route';
import * as bulk from '@/app/v1/verify/bulk/route';
import * as status from '@/app/v1/verify/bulk/status/[jobId]/route';
import * as download from '@/app/v1/verify/bulk/download/[jobId]/route';
import * as egress from '@/app/v1/egress/route';
import { metrics } from '@/lib/metrics/registry';
import { JobWorker } from '@/lib/jobs/worker/worker';
import { grantCredits } from '@/lib/accounts/quota';
import { verifierFor } from '@/lib/checks/verifiers';
import { DIALECTS } from '../databases';
import { startDnsmasq, type DnsPeer } from '../peers/dnsmasq';
import { startScriptedSmtp, type ScriptedSmtp } from '../peers/scripted-smtp';
import { call, setup, until } from './harness';

// Rejections that are not about the recipient, end to end in production mode: a mailbox over its
// rate is handed back and asked again within a job (as greylisting is), a sender rejection stays
// unknown/sender_rejected in results and CSV, and both replies (the address's and the made-up
// address's) reach the API's evidence. Replies are real ones from test/fixtures/rejections.
const GMAIL_RATE = [
  '550-5.2.1 The user you are trying to contact is receiving mail at a rate that',
  '550-5.2.1 prevents additional messages from being delivered. For more',
  '550 5.2.1 information, visit https://support.google.com/mail/?p=ReceivingRate - gsmtp',
];
const GMAIL_UNKNOWN = [
  '550-5.1.1 The email account that you tried to reach does not exist. Please try',
  '550 5.1.1 https://support.google.com/mail/?p=NoSuchUser - gsmtp',
];
// Postfix's smtpd test expectations (smtpd_check.ref): the sender's table says "unknown" about the sender
const SENDER_UNKNOWN = '550 5.1.0 <check@verifier.test>: Sender address rejected: User unknown in local recipient table';

const FILLERS = Array.from({ length: 9 }, (_, i) => `alice@fill${i}.test`);

describe.each(DIALECTS)('rejections not about the recipient on %s', (dialect) => {
  let smtp: ScriptedSmtp;
  let dns: DnsPeer;
  let ctx: Awaited<ReturnType<typeof setup>>;
  let busyAsked = 0;

  beforeAll(async () => {
    smtp = await startScriptedSmtp({
      rcpt: (address) => {
        if (address.endsWith('@sender.test')) return SENDER_UNKNOWN;
        // a server that refuses us: every recipient alike, postmaster too
        if (address.endsWith('@refuses-us.test')) return '550 Rejected';
        if (address === 'busy@rate.test') return busyAsked++ === 0 ? GMAIL_RATE : '250 2.1.5 OK - gsmtp';
        return address.startsWith('alice') ? '250 2.1.5 OK - gsmtp' : GMAIL_UNKNOWN;
      },
    });
    // the fillers of the job each have an MX host of their own: conversations with one host are paced
    const fillers = FILLERS.flatMap((_, i) => [`mx-host=fill${i}.test,mx${i}.fill.test,10`, `host-record=mx${i}.fill.test,${smtp.host}`]);
    dns = await startDnsmasq([
      `host-record=mx.reject.test,${smtp.host}`,
      'mx-host=rate.test,mx.reject.test,10',
      'mx-host=sender.test,mx.reject.test,10',
      'mx-host=refuses-us.test,mx.reject.test,10',
      'host-record=canary.test,127.0.0.1',
      ...fillers,
    ]);
    Object.assign(process.env, {
      EV_DNS_SERVERS: dns.server,
      EV_DNS_CANARIES: 'canary.test',
      EV_SMTP_PORT: String(smtp.port),
      EV_ALLOW_PRIVATE_NETWORKS: 'true',
      EV_ALLOW_PLACEHOLDER_IDENTITY: 'true',
      EV_SMTP_CONNECT_TIMEOUT_MS: '1000',
      EV_SMTP_COMMAND_TIMEOUT_MS: '2000',
      EV_GREYLIST_RETRY_MS: '300',
      EV_RATE_LIMIT_PER_MINUTE: '1000',
      EV_VERIFY_DEADLINE_MS: '5000',
      EV_CHUNK_SIZE: '5',
      EV_EMBEDDED_WORKER: 'false',
    });
    ctx = await setup(dialect);
    await grantCredits(ctx.database, ctx.account.id, 100);
  });

  afterAll(async () => {
    await ctx?.teardown();
    await smtp?.stop();
    await dns?.stop();
  });

  it('answers a sender rejection unknown/sender_rejected, with the made-up address reply beside it', async () => {
    const res = await call(single.POST, { key: ctx.key, sandbox: false, body: { email: 'bob@sender.test' } });
    expect(res.json).toMatchObject({ status: 'unknown', reason: 'unavailable_smtp', sub_reason: 'sender_rejected', valid: true });
    expect(res.json.evidence).toMatchObject({ smtp_code: 550, smtp_enhanced_code: '5.1.0', control_code: 550, control_enhanced_code: '5.1.0' });
    expect(res.json.evidence.control_message).toMatch(/Sender address rejected/);
    // a missing mailbox still is undeliverable, and the made-up address's identical refusal is in its evidence
    const gone = await call(single.POST, { key: ctx.key, sandbox: false, body: { email: 'nobody@rate.test' } });
    expect(gone.json).toMatchObject({
      status: 'undeliverable',
      reason: 'rejected_email',
      evidence: { smtp_enhanced_code: '5.1.1', control_enhanced_code: '5.1.1' },
    });
  });

  it('asks a mailbox over its rate again within a job instead of calling it undeliverable', async () => {
    const worker = new JobWorker(ctx.database, { concurrency: 2, leaseMs: 5000, pollMs: 20, verifierFor });
    worker.start();
    try {
      // more than ten addresses: a queued job, verified by the worker (ten or fewer are answered at once)
      const res = await call(bulk.POST, {
        key: ctx.key,
        sandbox: false,
        body: { emails: ['busy@rate.test', 'carol@sender.test', 'ghost@rate.test', ...FILLERS] },
      });
      expect(res.json.status).toBe('queued');
      const jobId = res.json.job_id;
      const done = await until(
        () => call(status.GET, { key: ctx.key, sandbox: false, params: { jobId } }),
        (r) => r.json.status === 'completed',
      );
      const byEmail = Object.fromEntries(done.json.data.results.map((r: { email: string }) => [r.email, r]));
      expect(busyAsked).toBe(2);
      expect(byEmail['busy@rate.test']).toMatchObject({ status: 'deliverable' });
      expect(byEmail['carol@sender.test']).toMatchObject({ status: 'unknown', sub_reason: 'sender_rejected' });
      expect(byEmail['ghost@rate.test']).toMatchObject({ status: 'undeliverable' });
      const csv = (await call(download.GET, { key: ctx.key, sandbox: false, params: { jobId } })).text.trim().split('\r\n');
      expect(csv.find((l: string) => l.startsWith('carol@sender.test,'))).toMatch(/,sender_rejected,,?$/);
    } finally {
      await worker.stop();
    }
  });

  it('calls a bare refusal that postmaster got too unknown/postmaster_refused, and counts it as a sign against the egress', async () => {
    const before = (await metrics().smtpReplies.get()).values.filter((v) => v.labels.class === 'postmaster_refused').reduce((sum, v) => sum + v.value, 0);
    const res = await call(single.POST, { key: ctx.key, sandbox: false, body: { email: 'bob@refuses-us.test' } });
    expect(res.json).toMatchObject({ status: 'unknown', reason: 'unavailable_smtp', sub_reason: 'postmaster_refused', valid: true });
    expect(res.json.evidence).toMatchObject({
      smtp_code: 550,
      smtp_message: 'Rejected',
      control_code: 550,
      control_message: 'Rejected',
      postmaster_code: 550,
      postmaster_message: 'Rejected',
    });
    expect(smtp.commands.filter((c) => c.line === 'RCPT TO:<postmaster@refuses-us.test>')).toHaveLength(1);
    // the metrics count it apart, and GET /v1/egress warns about this egress, naming the server
    const after = (await metrics().smtpReplies.get()).values.filter((v) => v.labels.class === 'postmaster_refused').reduce((sum, v) => sum + v.value, 0);
    expect(after - before).toBe(1);
    const report = await call(egress.GET, { key: ctx.key, sandbox: false, path: '/v1/egress' });
    const refusals = report.json.data.checks.find((c: { name: string }) => c.name === 'refusals');
    expect(refusals).toMatchObject({
      status: 'warn',
      message: expect.stringMatching(/^\d+ refusals? in the last hour that postmaster@ got too \(mx:mx\.reject\.test\)/),
    });
    expect(report.json.data.status).not.toBe('pass');
  });
});
