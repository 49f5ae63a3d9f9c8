import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import * as egress from '@/app/v1/egress/route';
import * as bulk from '@/app/v1/verify/bulk/route';
import * as single from '@/app/v1/verify/single/route';
import * as account from '@/app/v1/account/route';
import { checkEgress } from '@/lib/egress/check';
import { EgressMonitor, egressDepsFromEnv, productionPaused } from '@/lib/egress/state';
import { saveEgressReport } from '@/lib/egress/fleet';
import { env } from '@/lib/config/env';
import { submitQueued } from '@/lib/jobs/intake/submit';
import { JobWorker } from '@/lib/jobs/worker/worker';
import { verifierFor } from '@/lib/checks/verifiers';
import { startDnsmasq, type DnsPeer } from '../peers/dnsmasq';
import { startPostfix, type PostfixPeer } from '../peers/postfix';
import { call, setup } from './harness';

// GET /v1/egress against a real Postfix (the probe target) and dnsmasq (PTR, forward record, blocklist zone).
const ENV = [
  'EV_EGRESS_PROBE_HOSTS',
  'EV_DNS_SERVERS',
  'EV_DNSBL_ZONES',
  'EV_HELO_NAME',
  'EV_MAIL_FROM',
  'EV_SMTP_PORT',
  'EV_ALLOW_PRIVATE_NETWORKS',
  'EV_SMTP_CONNECT_TIMEOUT_MS',
  'EV_ALLOW_PLACEHOLDER_IDENTITY',
];

let ctx: Awaited<ReturnType<typeof setup>>;
let dns: DnsPeer;
let postfix: PostfixPeer;

beforeAll(async () => {
  postfix = await startPostfix({ mailboxes: ['alice@example.test'] });
  dns = await startDnsmasq(
    ['mx-host=probe.test,mx.probe.test,10', 'address=/mx.probe.test/127.0.0.1', 'host-record=helo.test,127.0.0.1', 'host-record=out121.test,127.0.0.121'],
    ['test', 'bl.test', '0.0.127.in-addr.arpa'],
  );
  Object.assign(process.env, {
    EV_EGRESS_PROBE_HOSTS: 'probe.test',
    EV_DNS_SERVERS: dns.server,
    EV_DNSBL_ZONES: 'bl.test',
    EV_HELO_NAME: 'helo.test',
    EV_MAIL_FROM: 'check@helo.test',
    EV_SMTP_PORT: String(postfix.port),
    EV_ALLOW_PRIVATE_NETWORKS: 'true',
    EV_SMTP_CONNECT_TIMEOUT_MS: '1000',
  });
  ctx = await setup('sqlite');
});

afterAll(async () => {
  for (const name of ENV) delete process.env[name];
  await ctx?.teardown();
  await postfix?.stop();
  await dns?.stop();
});

describe('GET /v1/egress', () => {
  it('needs a key', async () => {
    const res = await call(egress.GET, { key: null, path: '/v1/egress' });
    expect(res.status).toBe(401);
    expect(res.json.error).toBe('authentication_error');
  });

  it('answers the checks, cached, in either mode', async () => {
    const res = await call(egress.GET, { key: ctx.key, sandbox: false, path: '/v1/egress' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-limit')).toBeTruthy();
    expect(res.json).toMatchObject({
      success: true,
      data: { status: 'pass', egress_ip: '127.0.0.1', helo_name: 'helo.test', policy: 'warn', production_paused: false },
    });
    expect(res.json.data.checks.map((c: any) => [c.name, c.status])).toEqual([
      ['identity', 'pass'],
      ['port25', 'pass'],
      ['egress_ip', 'pass'],
      ['rdns', 'pass'],
      ['dnsbl', 'pass'],
      ['resolver', 'pass'],
    ]);
    for (const check of res.json.data.checks) expect(Object.keys(check).sort()).toEqual(['message', 'name', 'remedy', 'status']);
    const again = await call(egress.GET, { key: ctx.key, path: '/v1/egress' });
    expect(again.json.data.checked_at).toBe(res.json.data.checked_at);
  });

  it('checks again on ?refresh=true, at most every 10 s, and refuses another refresh value', async () => {
    const first = (await call(egress.GET, { key: ctx.key, path: '/v1/egress' })).json.data.checked_at;
    const limited = await call(egress.GET, { key: ctx.key, path: '/v1/egress?refresh=true' });
    expect(limited.json.data.checked_at).toBe(first);
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 11_000);
      const forced = await call(egress.GET, { key: ctx.key, path: '/v1/egress?refresh=true' });
      expect(forced.status).toBe(200);
      expect(forced.json.data.checked_at > first).toBe(true);
      expect((await call(egress.GET, { key: ctx.key, path: '/v1/egress' })).json.data.checked_at).toBe(forced.json.data.checked_at);
    } finally {
      vi.useRealTimers();
    }
    const bad = await call(egress.GET, { key: ctx.key, path: '/v1/egress?refresh=yes' });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ error: 'invalid_request', param: 'refresh' });
  });
});

describe('GET /v1/egress in a fleet', () => {
  it('lists every egress as its own process last checked it: a worker on 127.0.0.121 is judged from there', async () => {
    // a worker with EV_SMTP_SOURCE_IP=127.0.0.121 and its own HELO name runs its check and records it
    const worker = new EgressMonitor({
      run: () => checkEgress(egressDepsFromEnv({ ...env(), EV_SMTP_SOURCE_IP: '127.0.0.121', EV_SMTP_SOURCE_HELO: 'out121.test' })),
      intervalMs: 600_000,
      record: (report) => saveEgressReport(ctx.database, report),
    });
    expect(await worker.get()).toMatchObject({
      egress: 'ip:127.0.0.121',
      sourceIp: '127.0.0.121',
      egressIp: '127.0.0.121',
      heloName: 'out121.test',
      status: 'pass',
    });
    const res = await call(egress.GET, { key: ctx.key, path: '/v1/egress?refresh=true' });
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ egress: 'default', source_ip: null, egress_ip: '127.0.0.1' });
    const listed = res.json.data.egresses.map((e: any) => [e.egress, e.egress_ip, e.helo_name, e.status]);
    expect(listed).toEqual([
      ['default', '127.0.0.1', 'helo.test', 'pass'],
      ['ip:127.0.0.121', '127.0.0.121', 'out121.test', 'pass'],
    ]);
    // its reverse DNS was checked against its own address and HELO name
    const rdns = res.json.data.egresses[1].checks.find((c: any) => c.name === 'rdns');
    expect(rdns.message).toContain('127.0.0.121');
  });
});

describe('the placeholder sender identity', () => {
  const identity = async () => {
    const res = await call(egress.GET, { key: ctx.key, path: '/v1/egress?refresh=true' });
    return { data: res.json.data, check: res.json.data.checks.find((c: any) => c.name === 'identity') };
  };
  const reconfigure = (values: Record<string, string | undefined>) => {
    for (const [name, value] of Object.entries(values))
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
  };

  it('refuses production probing with verifier.localhost: the check fails, single checks answer 503, jobs wait', async () => {
    reconfigure({ EV_HELO_NAME: undefined, EV_MAIL_FROM: undefined }); // the shipped defaults
    try {
      const { data, check } = await identity();
      expect(data).toMatchObject({ status: 'fail', production_paused: true, helo_name: 'verifier.localhost' });
      expect(check).toMatchObject({
        status: 'fail',
        message: expect.stringContaining('the HELO name is verifier.localhost and the MAIL FROM domain is verifier.localhost'),
      });
      expect(check.remedy).toContain('EV_ALLOW_PLACEHOLDER_IDENTITY');

      const before = (await call(account.GET, { key: ctx.key, sandbox: false })).json;
      const refused = await call(single.POST, { key: ctx.key, sandbox: false, body: { email: 'alice@probe.test' } });
      expect(refused.status).toBe(503);
      expect(refused.json).toMatchObject({ error: 'service_unavailable', message: expect.stringContaining('Production probing is off') });
      const instant = await call(bulk.POST, { key: ctx.key, sandbox: false, body: { emails: ['alice@probe.test'] } });
      expect(instant.status).toBe(503);
      expect((await call(account.GET, { key: ctx.key, sandbox: false })).json).toMatchObject({ free_remaining_today: before.free_remaining_today });
      // the sandbox never probes: unaffected
      expect((await call(single.POST, { key: ctx.key, sandbox: true, body: { email: 'valid@x.com' } })).status).toBe(200);

      expect(productionPaused()).toBe(true);
      const job = await submitQueued(ctx.database, {
        userId: ctx.account.id,
        sandbox: false,
        emails: Array.from({ length: 20 }, (_, i) => `u${i}@probe.test`),
      });
      const worker = new JobWorker(ctx.database, { concurrency: 4, leaseMs: 5000, pollMs: 20, verifierFor, productionPaused });
      worker.start();
      await new Promise((r) => setTimeout(r, 400));
      await worker.stop();
      expect((await ctx.database.prisma.job.findUnique({ where: { id: job.jobId } }))!.status).toBe('queued');
      await ctx.database.prisma.job.update({ where: { id: job.jobId }, data: { status: 'cancelled' } });
    } finally {
      reconfigure({ EV_HELO_NAME: 'helo.test', EV_MAIL_FROM: 'check@helo.test' });
    }
  });

  it('probes with it when EV_ALLOW_PLACEHOLDER_IDENTITY=true, and warns', async () => {
    reconfigure({ EV_MAIL_FROM: 'verify@verifier.localhost', EV_ALLOW_PLACEHOLDER_IDENTITY: 'true' });
    try {
      const { data, check } = await identity();
      expect(data).toMatchObject({ status: 'warn', production_paused: false });
      expect(check).toMatchObject({ status: 'warn', message: expect.stringContaining('the MAIL FROM domain is verifier.localhost') });
      expect(productionPaused()).toBe(false);
    } finally {
      reconfigure({ EV_MAIL_FROM: 'check@helo.test', EV_ALLOW_PLACEHOLDER_IDENTITY: undefined });
    }
  });
});
