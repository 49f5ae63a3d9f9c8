import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import * as egress from '@/app/v1/egress/route';
import { resetEgressForTests } from '@/lib/egress/state';
import { resetEnvForTests } from '@/lib/env';
import { startDnsmasq, type DnsPeer } from '../peers/dnsmasq';
import { startPostfix, type PostfixPeer } from '../peers/postfix';
import { call, setup } from './harness';

// GET /v1/egress against a real Postfix (the probe target) and dnsmasq (PTR, forward record, blocklist zone).
const ENV = ['EV_EGRESS_PROBE_HOSTS', 'EV_DNS_SERVERS', 'EV_DNSBL_ZONES', 'EV_HELO_NAME', 'EV_SMTP_PORT', 'EV_ALLOW_PRIVATE_NETWORKS', 'EV_SMTP_CONNECT_TIMEOUT_MS'];

let ctx: Awaited<ReturnType<typeof setup>>;
let dns: DnsPeer;
let postfix: PostfixPeer;

beforeAll(async () => {
  postfix = await startPostfix({ mailboxes: ['alice@example.test'] });
  dns = await startDnsmasq(['mx-host=probe.test,mx.probe.test,10', 'address=/mx.probe.test/127.0.0.1', 'host-record=helo.test,127.0.0.1'], ['test', 'bl.test', '0.0.127.in-addr.arpa']);
  Object.assign(process.env, {
    EV_EGRESS_PROBE_HOSTS: 'probe.test', EV_DNS_SERVERS: dns.server, EV_DNSBL_ZONES: 'bl.test', EV_HELO_NAME: 'helo.test',
    EV_SMTP_PORT: String(postfix.port), EV_ALLOW_PRIVATE_NETWORKS: 'true', EV_SMTP_CONNECT_TIMEOUT_MS: '1000',
  });
  resetEnvForTests();
  resetEgressForTests();
  ctx = await setup('sqlite');
});

afterAll(async () => {
  for (const name of ENV) delete process.env[name];
  resetEnvForTests();
  resetEgressForTests();
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
    expect(res.json.data.checks.map((c: any) => [c.name, c.status])).toEqual([['port25', 'pass'], ['egress_ip', 'pass'], ['rdns', 'pass'], ['dnsbl', 'pass'], ['resolver', 'pass']]);
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
