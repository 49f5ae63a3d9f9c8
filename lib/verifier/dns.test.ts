import dgram from 'node:dgram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDnsmasq, type DnsPeer } from '../../test/peers/dnsmasq';
import { createDnsResolver, parseDnsServers } from './dns';

const ZONE = [
  'mx-host=multi.test,mx2.multi.test,20',
  'mx-host=multi.test,mx1.multi.test,5',
  'host-record=mx1.multi.test,127.0.0.1',
  'host-record=mx2.multi.test,127.0.0.2',
  'host-record=aonly.test,127.0.0.1',
  'mx-host=nullmx.test,.,0',
  'txt-record=txtonly.test,"v=spf1 -all"',
  // a zone that answers with far more than any MTA would try
  ...Array.from({ length: 40 }, (_, i) => `mx-host=many.test,mx${i}.many.test,${100 - i}`),
  ...Array.from({ length: 30 }, (_, i) => `host-record=mx0.many.test,127.0.1.${i + 1}`),
];

describe('dns resolver against dnsmasq', () => {
  let dns: DnsPeer;
  beforeAll(async () => {
    dns = await startDnsmasq(ZONE);
  });
  afterAll(async () => {
    await dns?.stop();
  });

  it('sorts MX hosts by preference', async () => {
    const resolver = createDnsResolver({ servers: [dns.server] });
    expect(await resolver.mailRoute('multi.test')).toEqual({
      kind: 'mx',
      hosts: [
        { exchange: 'mx1.multi.test', priority: 5 },
        { exchange: 'mx2.multi.test', priority: 20 },
      ],
    });
    expect(await resolver.addresses('mx2.multi.test')).toEqual({ ok: true, ips: ['127.0.0.2'] });
  });

  it('keeps the 10 most preferred of 40 MX hosts and 5 of 30 addresses (DNS_LIMITS)', async () => {
    const resolver = createDnsResolver({ servers: [dns.server] });
    const route = await resolver.mailRoute('many.test');
    expect(route.kind).toBe('mx');
    const hosts = (route as { hosts: { exchange: string; priority: number }[] }).hosts;
    expect(hosts.map((h) => h.priority)).toEqual([61, 62, 63, 64, 65, 66, 67, 68, 69, 70]);
    const addresses = await resolver.addresses('mx0.many.test');
    expect(addresses.ok && addresses.ips.length).toBe(5);
  });

  it('falls back to the A record when there is no MX', async () => {
    const resolver = createDnsResolver({ servers: [dns.server] });
    expect(await resolver.mailRoute('aonly.test')).toEqual({ kind: 'implicit', hosts: [{ exchange: 'aonly.test', priority: 0 }] });
  });

  it('tells null MX, no mail records and NXDOMAIN apart', async () => {
    const resolver = createDnsResolver({ servers: [dns.server] });
    expect(await resolver.mailRoute('nullmx.test')).toEqual({ kind: 'null_mx' });
    expect(await resolver.mailRoute('txtonly.test')).toEqual({ kind: 'no_mail' });
    expect(await resolver.mailRoute('nosuchdomain.test')).toEqual({ kind: 'nxdomain' });
  });

  it('serves answers from the cache until the TTL passes on the injected clock', async () => {
    const own = await startDnsmasq(ZONE);
    let clock = 1_000_000;
    const resolver = createDnsResolver({ servers: [own.server], now: () => clock, timeoutMs: 300, tries: 1 });
    const first = await resolver.mailRoute('multi.test');
    await own.stop();
    expect(await resolver.mailRoute('multi.test')).toEqual(first);
    clock += 301_000;
    expect((await resolver.mailRoute('multi.test')).kind).toBe('unknown');
  });
});

describe('dns resolver against a server that never answers', () => {
  it('answers unknown, never nxdomain', async () => {
    const silent = dgram.createSocket('udp4');
    await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve));
    const resolver = createDnsResolver({ servers: [`127.0.0.1:${silent.address().port}`], timeoutMs: 200, tries: 1 });
    expect(await resolver.mailRoute('example.com')).toEqual({ kind: 'unknown', error: 'ETIMEOUT' });
    silent.close();
  });

  it('parses EV_DNS_SERVERS', () => {
    expect(parseDnsServers(' 127.0.0.1:5353, [::1]:53 ,')).toEqual(['127.0.0.1:5353', '[::1]:53']);
  });
});
