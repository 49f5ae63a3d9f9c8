import dgram from 'node:dgram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../test/peers/common';
import { startDante } from '../../test/peers/dante';
import { startDnsmasq, type DnsPeer } from '../../test/peers/dnsmasq';
import { startPostfix, type PostfixPeer } from '../../test/peers/postfix';
import { startTcpPeer, type TcpPeer } from '../../test/peers/tcp';
import { parseProxyUrl } from '../verifier/proxy';
import { checkEgress, createEgressDns, parseTarget, placeholderIdentity, reverseLabels, type EgressDeps, type EgressReport } from './check';

// Real dnsmasq and Postfix on loopback. Egress addresses are loopback ones (judged because
// allowPrivateNetworks is on, as in a lab): 127.0.0.1 is well set up, 127.0.0.2 is the DNSBL test
// address (listed), 127.0.0.3 has a PTR that is not the HELO name, 127.0.0.4 has no PTR at all,
// 127.0.0.5 a PTR whose name does not resolve.
let dns: DnsPeer;
let postfix: PostfixPeer;
let silentMx: TcpPeer;
let silentDns: dgram.Socket;

beforeAll(async () => {
  silentDns = dgram.createSocket('udp4'); // swallows every query: a blocklist that never answers
  await new Promise<void>((resolve) => silentDns.bind(0, '127.0.0.1', resolve));
  postfix = await startPostfix({ mailboxes: ['alice@example.test'] });
  silentMx = await startTcpPeer('silent', '127.0.0.2', postfix.port);
  dns = await startDnsmasq(
    [
      'mx-host=probe.test,mx.probe.test,10',
      'address=/mx.probe.test/127.0.0.1',
      'mx-host=silent.test,mx.silent.test,10',
      'address=/mx.silent.test/127.0.0.2',
      // host-record writes the A record and the PTR
      'host-record=helo.test,127.0.0.1',
      'host-record=listed.helo.test,127.0.0.2',
      'host-record=other.test,127.0.0.3',
      'address=/2.0.0.127.zen.spamhaus.org/127.0.0.2',
      'address=/2.0.0.127.zen.spamhaus.org/127.0.0.4',
      'ptr-record=5.0.0.127.in-addr.arpa,dangling.test',
      `server=/slow.bl.test/127.0.0.1#${silentDns.address().port}`,
    ],
    ['test', 'zen.spamhaus.org', '0.0.127.in-addr.arpa'],
  );
});

afterAll(async () => {
  await dns?.stop();
  await silentMx?.stop();
  await postfix?.stop();
  silentDns?.close();
});

function deps(overrides: Partial<EgressDeps> = {}): EgressDeps {
  return {
    dns: createEgressDns({ servers: [dns.server], timeoutMs: 400, tries: 1 }),
    heloName: 'helo.test',
    smtpPort: postfix.port,
    probeTargets: ['probe.test'],
    dnsblZones: ['zen.spamhaus.org', 'bl.test'],
    timeoutMs: 1000,
    allowPrivateNetworks: true,
    ...overrides,
  };
}

const byName = (report: EgressReport) => Object.fromEntries(report.checks.map((c) => [c.name, c]));

describe('checkEgress against real DNS and SMTP', () => {
  it('fails the resolver check when the resolver denies a canary, and passes when it knows them', async () => {
    // dnsmasq answers NXDOMAIN for names under its local zones it does not know: nosuch.test
    const lying = await checkEgress(
      deps({ dns: createEgressDns({ servers: [dns.server], timeoutMs: 400, tries: 1, canaries: ['helo.test', 'nosuch.test'] }) }),
    );
    expect(byName(lying).resolver).toMatchObject({ status: 'fail', message: expect.stringContaining('denies nosuch.test (NXDOMAIN)') });
    expect(byName(lying).resolver!.remedy).toContain('EV_DNS_SERVERS');
    expect(lying.status).toBe('fail');
    const sane = await checkEgress(deps({ dns: createEgressDns({ servers: [dns.server], timeoutMs: 400, tries: 1, canaries: ['helo.test'] }) }));
    expect(byName(sane).resolver).toMatchObject({ status: 'pass', remedy: null });
    expect(byName(await checkEgress(deps())).resolver).toBeUndefined(); // no canaries, no check
  });

  it('passes when port 25 answers, the PTR is the HELO name and resolves back, and no list has the address', async () => {
    const report = await checkEgress(deps({ heloName: 'HELO.test.' }));
    const checks = byName(report);
    expect(report).toMatchObject({ status: 'pass', egressIp: '127.0.0.1', heloName: 'helo.test' });
    expect(checks.port25!.message).toContain('mx.probe.test (127.0.0.1)');
    expect(checks.port25!.message).toContain('220 mx.example.test ESMTP');
    expect(checks.egress_ip!.message).toContain('local address of the probe connection');
    expect(checks.rdns).toMatchObject({ status: 'pass', remedy: null });
    expect(checks.dnsbl).toMatchObject({ status: 'pass', message: '127.0.0.1 is on none of zen.spamhaus.org, bl.test.' });
    expect(new Date(report.checkedAt).getTime()).toBeGreaterThan(Date.now() - 60_000);
  });

  it('fails port 25 when nothing answers, and says how to get around the block', async () => {
    const closed = await freePort();
    const report = await checkEgress(deps({ probeTargets: [`127.0.0.1:${closed}`, 'silent.test'], egressIp: undefined }));
    const checks = byName(report);
    expect(report.status).toBe('fail');
    expect(checks.port25).toMatchObject({ status: 'fail' });
    expect(checks.port25!.message).toContain(`127.0.0.1 port ${closed}: ECONNREFUSED`);
    expect(checks.port25!.message).toContain('mx.silent.test (127.0.0.2)');
    expect(checks.port25!.message).toContain('no answer within 1000 ms');
    expect(checks.port25!.remedy).toContain('EV_SMTP_PROXY');
    // no connection, no configured address: the address checks cannot run
    expect(checks.egress_ip!.status).toBe('warn');
    expect(checks.rdns).toMatchObject({ status: 'warn', message: 'Skipped: the egress IP is unknown.' });
    // with EV_EGRESS_IP the address is still judged
    const configured = await checkEgress(deps({ probeTargets: [`127.0.0.1:${closed}`], egressIp: '127.0.0.1' }));
    expect(byName(configured).rdns!.status).toBe('pass');
    expect(configured.egressIp).toBe('127.0.0.1');
  });

  it('warns when the PTR record is not the HELO name, naming both', async () => {
    const report = await checkEgress(deps({ egressIp: '127.0.0.3' }));
    const rdns = byName(report).rdns!;
    expect(report.status).toBe('warn');
    expect(rdns.status).toBe('warn');
    expect(rdns.message).toBe('The PTR record of 127.0.0.3 is other.test, but EV_HELO_NAME is helo.test.');
    expect(rdns.remedy).toContain('EV_HELO_NAME=other.test');
  });

  it('fails without any PTR record, and when the PTR name does not resolve back', async () => {
    const none = byName(await checkEgress(deps({ egressIp: '127.0.0.4' }))).rdns!;
    expect(none.status).toBe('fail');
    expect(none.message).toContain('127.0.0.4 has no reverse DNS (PTR) record');
    // 127.0.0.5 → dangling.test, which has no address
    const dangling = byName(await checkEgress(deps({ egressIp: '127.0.0.5' }))).rdns!;
    expect(dangling.status).toBe('fail');
    expect(dangling.message).toContain('127.0.0.5 → dangling.test, which does not resolve back');
    const claimed = byName(await checkEgress(deps({ egressIp: '127.0.0.5', heloName: 'dangling.test' }))).rdns!;
    expect(claimed).toMatchObject({ status: 'fail', remedy: 'Publish an A/AAAA record dangling.test → 127.0.0.5.' });
    expect(claimed.message).toContain('not forward-confirmed');
  });

  it('fails when a blocklist has the address, naming the zone and the code', async () => {
    const report = await checkEgress(deps({ egressIp: '127.0.0.2', heloName: 'listed.helo.test' }));
    const dnsbl = byName(report).dnsbl!;
    expect(report.status).toBe('fail');
    expect(dnsbl.status).toBe('fail');
    expect(dnsbl.message).toMatch(/^127\.0\.0\.2 is listed on zen\.spamhaus\.org \((127\.0\.0\.2, 127\.0\.0\.4|127\.0\.0\.4, 127\.0\.0\.2)\)\.$/);
    expect(dnsbl.remedy).toContain('spamhaus');
    // port 25 still works: listed is not blocked
    expect(byName(report).port25!.status).toBe('pass');
  });

  it('warns "could not check" when a blocklist does not answer', async () => {
    const started = Date.now();
    const report = await checkEgress(deps({ dnsblZones: ['zen.spamhaus.org', 'slow.bl.test'] }));
    const dnsbl = byName(report).dnsbl!;
    expect(report.status).toBe('warn');
    expect(dnsbl.status).toBe('warn');
    expect(dnsbl.message).toMatch(/^Could not check slow\.bl\.test \((ETIMEOUT|ESERVFAIL|ECONNREFUSED)\); not listed on the other 1\.$/);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('goes through the SOCKS5 proxy, and takes the egress address from its reply', async () => {
    const dante = await startDante();
    try {
      const report = await checkEgress(deps({ proxy: parseProxyUrl(dante.url) }));
      expect(byName(report).port25!.message).toContain(`through the proxy 127.0.0.1:${dante.port}`);
      expect(byName(report).egress_ip!.message).toBe('127.0.0.1 (as reported by the proxy; private, judged because EV_ALLOW_PRIVATE_NETWORKS=true).');
      expect(report.status).toBe('pass');
    } finally {
      await dante.stop();
    }
    const blocking = await startDante({ block: ['127.0.0.1/32'] });
    try {
      const port25 = byName(await checkEgress(deps({ proxy: parseProxyUrl(blocking.url) }))).port25!;
      expect(port25.status).toBe('fail');
      expect(port25.message).toContain('proxy:');
      expect(port25.remedy).toContain('proxy host itself');
    } finally {
      await blocking.stop();
    }
  });

  it('calls a private egress address unjudgeable unless private networks are allowed', async () => {
    const report = await checkEgress(deps({ allowPrivateNetworks: false, dnsblZones: [] }));
    const checks = byName(report);
    expect(checks.port25!.status).toBe('pass');
    expect(checks.egress_ip).toMatchObject({ status: 'warn' });
    expect(checks.egress_ip!.remedy).toContain('EV_EGRESS_IP');
    expect(checks.rdns!.message).toBe('Skipped: 127.0.0.1 is a private address, receivers see another one.');
    expect(report.status).toBe('warn');
  });
});

describe('helpers', () => {
  it('reverses IPv4 octets and IPv6 nibbles for DNSBL names', () => {
    expect(reverseLabels('192.0.2.99')).toBe('99.2.0.192');
    expect(reverseLabels('::ffff:192.0.2.99')).toBe('99.2.0.192');
    expect(reverseLabels('2001:db8::1')).toBe('1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2');
    expect(reverseLabels('2001:db8:1:2:3:4:5:6')).toBe('6.0.0.0.5.0.0.0.4.0.0.0.3.0.0.0.2.0.0.0.1.0.0.0.8.b.d.0.1.0.0.2');
    expect(reverseLabels('not an ip')).toBeNull();
  });

  it('parses probe targets', () => {
    expect(parseTarget('Gmail.com', 25)).toEqual({ host: 'gmail.com', port: 25 });
    expect(parseTarget('mx.example.com:2525', 25)).toEqual({ host: 'mx.example.com', port: 2525 });
    expect(parseTarget('[2001:db8::1]:26', 25)).toEqual({ host: '2001:db8::1', port: 26 });
    expect(parseTarget('2001:db8::1', 25)).toEqual({ host: '2001:db8::1', port: 25 });
  });
});

describe('placeholderIdentity', () => {
  it('names the localhost HELO name and MAIL FROM domain real servers refuse, and nothing else', () => {
    expect(placeholderIdentity('verifier.localhost', 'verify@verifier.localhost')).toBe(
      'the HELO name is verifier.localhost and the MAIL FROM domain is verifier.localhost, a placeholder real mail servers refuse',
    );
    expect(placeholderIdentity('mx1.example.com', 'check@LOCALHOST')).toBe('the MAIL FROM domain is LOCALHOST, a placeholder real mail servers refuse');
    expect(placeholderIdentity('mx1.example.com', 'check@example.com')).toBeNull();
    expect(placeholderIdentity('notlocalhost.example.com', 'check@mylocalhost.com')).toBeNull();
  });
});
