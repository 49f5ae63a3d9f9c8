import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as single from '@/app/v1/verify/single/route';
import * as bulk from '@/app/v1/verify/bulk/route';
import * as status from '@/app/v1/verify/bulk/status/[jobId]/route';
import * as download from '@/app/v1/verify/bulk/download/[jobId]/route';
import { JobWorker } from '@/lib/jobs/worker/worker';
import { grantCredits } from '@/lib/accounts/quota';
import { verifierFor } from '@/lib/checks/verifiers';
import { DIALECTS } from '../databases';
import { startRealWorldPeers, type RealWorldPeers } from '../peers/real-world';
import { call, setup, until } from './harness';

// Production mode end to end against servers that answer as the big providers and real MTAs do
// (test/peers/real-world.ts): sub_reason and mailbox_provider in single checks, the cache, bulk
// results and the CSV, and postscreen's first-connection refusal asked again within a job.
describe.each(DIALECTS)('real-world verdicts on %s', (dialect) => {
  let peers: RealWorldPeers;
  let ctx: Awaited<ReturnType<typeof setup>>;

  function configure(extra: Record<string, string> = {}) {
    Object.assign(process.env, {
      EV_DNS_SERVERS: peers.dns.server,
      EV_DNS_CANARIES: 'canary.test',
      EV_SMTP_PORT: String(peers.port),
      EV_ALLOW_PRIVATE_NETWORKS: 'true',
      EV_ALLOW_PLACEHOLDER_IDENTITY: 'true',
      EV_SMTP_CONNECT_TIMEOUT_MS: '1000',
      EV_SMTP_COMMAND_TIMEOUT_MS: '2000',
      EV_GREYLIST_RETRY_MS: '300',
      EV_RATE_LIMIT_PER_MINUTE: '1000',
      EV_VERIFY_DEADLINE_MS: '5000',
      EV_CHUNK_SIZE: '5',
      EV_EMBEDDED_WORKER: 'false',
      ...extra,
    });
  }

  beforeAll(async () => {
    peers = await startRealWorldPeers();
    configure();
    ctx = await setup(dialect);
    await grantCredits(ctx.database, ctx.account.id, 100);
  });

  afterAll(async () => {
    await ctx?.teardown();
    await peers?.stop();
  });

  const check = (email: string) => call(single.POST, { key: ctx.key, sandbox: false, body: { email } });

  it('answers single checks with the mailbox provider and sub_reason, and keeps both in the cache', async () => {
    expect((await check('nobody@YAHOO.test')).json).toMatchObject({
      email: 'nobody@YAHOO.test',
      normalized_email: 'nobody@yahoo.test',
      status: 'undeliverable',
      reason: 'rejected_email',
      sub_reason: null,
      provider: 'yahoo.test',
      mailbox_provider: 'yahoo',
    });
    const full = await check('full@gmail.test');
    expect(full.json).toMatchObject({ status: 'risky', sub_reason: 'mailbox_full', mailbox_provider: 'google', cached: false });
    expect((await check('full@gmail.test')).json).toMatchObject({
      status: 'risky',
      sub_reason: 'mailbox_full',
      mailbox_provider: 'google',
      normalized_email: 'full@gmail.test',
      cached: true,
    });
    expect((await check('anyone@mimecast.test')).json).toMatchObject({ status: 'unknown', sub_reason: 'provider_unverifiable', mailbox_provider: 'mimecast' });
    expect((await check('alice@tls.test')).json).toMatchObject({ status: 'deliverable', evidence: { tls: true } });
  });

  it('never calls gmail.com invalid through a resolver that denies everything', async () => {
    configure({ EV_DNS_SERVERS: peers.lying.server, EV_DNS_CANARIES: 'gmail.com' });
    try {
      const res = await check('someone@gmail.com');
      expect(res.json).toMatchObject({ status: 'unknown', valid: true, sub_reason: 'resolver_unreliable' });
      expect(res.json.evidence.dns_failure).toMatch(/resolver denies gmail\.com/);
    } finally {
      configure();
    }
  });

  it("runs a job: postscreen's first refusal asked again, every result and CSV row with its sub_reason", async () => {
    const worker = new JobWorker(ctx.database, { concurrency: 4, leaseMs: 5000, pollMs: 20, verifierFor });
    worker.start();
    try {
      const askedNobody = () => peers.servers.yahoo!.commands.filter((c) => c.line === 'RCPT TO:<nobody@yahoo.test>').length;
      const before = askedNobody();
      const emails = [
        'alice@postscreen.test',
        'bob@postscreen.test',
        'nobody@yahoo.test',
        'nobody@YAHOO.TEST',
        'alice@yahoo.test',
        'x@mimecast.test',
        'x@dangling.test',
        'alice@onercpt.test',
        'full@gmail.test',
        'alice@spamhaus.test',
        'alice@badtls.test',
        'nobody@microsoft.test',
      ];
      const res = await call(bulk.POST, { key: ctx.key, sandbox: false, body: { emails } });
      expect(res.json.status).toBe('queued');
      const jobId = res.json.job_id;
      const done = await until(
        () => call(status.GET, { key: ctx.key, sandbox: false, params: { jobId } }),
        (r) => r.json.status === 'completed',
      );
      const byEmail = Object.fromEntries(done.json.data.results.map((r: any) => [r.email, r]));
      expect(byEmail['alice@postscreen.test']).toMatchObject({ status: 'deliverable' });
      expect(byEmail['bob@postscreen.test']).toMatchObject({ status: 'undeliverable', reason: 'rejected_email' });
      expect(byEmail['nobody@yahoo.test']).toMatchObject({ status: 'undeliverable', mailbox_provider: 'yahoo' });
      // the same mailbox in another spelling is a duplicate (lib/jobs/intake/duplicates.ts): asked once, its
      // row in the download points at the first
      expect(byEmail['nobody@YAHOO.TEST']).toBeUndefined();
      expect(askedNobody() - before).toBe(1);
      expect(byEmail['alice@yahoo.test']).toMatchObject({ status: 'deliverable', mailbox_provider: 'yahoo' });
      expect(byEmail['x@mimecast.test']).toMatchObject({ status: 'unknown', sub_reason: 'provider_unverifiable' });
      expect(byEmail['x@dangling.test']).toMatchObject({ status: 'undeliverable', reason: 'no_mx', sub_reason: 'mx_unresolvable' });
      expect(byEmail['alice@onercpt.test']).toMatchObject({ status: 'catch-all' });
      expect(byEmail['full@gmail.test']).toMatchObject({ status: 'risky', sub_reason: 'mailbox_full' });
      expect(byEmail['alice@spamhaus.test']).toMatchObject({ status: 'unknown', sub_reason: 'ip_blocklisted' });
      expect(byEmail['alice@badtls.test']).toMatchObject({ status: 'unknown', sub_reason: 'tls_required' });
      expect(byEmail['nobody@microsoft.test']).toMatchObject({ status: 'undeliverable', mailbox_provider: 'microsoft' });
      // the job page's providers come from the MX hosts: *.test domains are no provider's by name
      expect(done.json.data.providers).toMatchObject({ google: 1, microsoft: 1, yahoo: 2 });
      // postscreen refused the first connection only: the retry went through
      expect(peers.servers.postscreen!.connections()).toBeGreaterThanOrEqual(2);

      const csv = (await call(download.GET, { key: ctx.key, sandbox: false, params: { jobId } })).text.trim().split('\r\n');
      expect(csv[0]!.endsWith(',sub_reason,mailbox_provider,duplicate_of')).toBe(true);
      expect(csv.find((l) => l.startsWith('x@mimecast.test,'))).toMatch(/,provider_unverifiable,mimecast,$/);
      expect(csv.find((l) => l.startsWith('x@dangling.test,'))).toMatch(/,mx_unresolvable,,$/);
      expect(csv.find((l) => l.startsWith('nobody@yahoo.test,'))).toMatch(/,,yahoo,$/);
      // the duplicate carries the first occurrence's verdict and its row number (header = row 1)
      expect(csv.find((l) => l.startsWith('nobody@YAHOO.TEST,'))).toMatch(/,,yahoo,4$/);
    } finally {
      await worker.stop();
    }
  });
});
