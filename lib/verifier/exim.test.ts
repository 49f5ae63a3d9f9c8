import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDnsmasq, type DnsPeer } from '../../test/peers/dnsmasq';
import { startExim, type EximPeer } from '../../test/peers/exim';
import { startRecordingRelay } from '../../test/peers/tcp';
import { probeMailbox } from './smtp';
import { createDnsResolver } from './dns';
import { createVerifier } from './verify';

// A real Exim 4 (Debian's build, unpacked beside Postfix by scripts/test.sh): its own wording
// ("550 Unrouteable address", no enhanced codes), and with recipients_max = 1 a server that takes
// one recipient per transaction ("452 too many recipients").
let dns: DnsPeer;
let exim: EximPeer;
let limited: EximPeer;

beforeAll(async () => {
  exim = await startExim({ mailboxes: ['alice@exim.test'], catchAllDomains: ['all.exim.test'] });
  limited = await startExim({ mailboxes: ['alice@one.test'], catchAllDomains: ['oneall.test'], recipientsMax: 1, host: '127.0.0.5', port: exim.port });
  dns = await startDnsmasq([
    ...['exim', 'all.exim'].flatMap((d) => [`mx-host=${d}.test,mx.${d}.test,10`, `host-record=mx.${d}.test,127.0.0.1`]),
    ...['one', 'oneall'].flatMap((d) => [`mx-host=${d}.test,mx.${d}.test,10`, `host-record=mx.${d}.test,127.0.0.5`]),
  ]);
});

afterAll(async () => {
  await Promise.all([exim?.stop(), limited?.stop()]);
  await dns?.stop();
});

const verifier = () =>
  createVerifier({
    dns: createDnsResolver({ servers: [dns.server], timeoutMs: 1000 }),
    smtp: { port: exim.port, heloName: 'verifier.test', mailFrom: 'check@verifier.test', connectTimeoutMs: 1000, commandTimeoutMs: 2000 },
    allowPrivateNetworks: true,
    perDomainConcurrency: 2,
    globalConcurrency: 10,
  });

describe('verify against Exim', () => {
  it('reads "550 Unrouteable address" as a missing mailbox and 250 as deliverable', async () => {
    const v = verifier();
    const nobody = (await v.verify('nobody@exim.test')).verdict;
    expect(nobody).toMatchObject({
      status: 'undeliverable',
      reason: 'rejected_email',
      evidence: { smtp_code: 550, smtp_enhanced_code: null, smtp_message: 'Unrouteable address' },
    });
    expect((await v.verify('alice@exim.test')).verdict).toMatchObject({ status: 'deliverable', risk_level: 'low', catch_all: false });
    expect((await v.verify('someone@all.exim.test')).verdict).toMatchObject({ status: 'catch-all', catch_all: true });
  });

  it('asks the catch-all question in a transaction of its own under recipients_max = 1', async () => {
    // the relay shows the RSET that Exim's "452 too many recipients" to the second RCPT led to
    const relay = await startRecordingRelay('127.0.0.6', limited.port, limited.port, limited.host);
    const probe = await probeMailbox({
      ip: relay.host,
      port: relay.port,
      heloName: 'verifier.test',
      mailFrom: 'check@verifier.test',
      connectTimeoutMs: 1000,
      commandTimeoutMs: 2000,
      recipient: 'alice@one.test',
      catchAllProbe: 'zz9q@one.test',
    });
    expect(probe).toMatchObject({ reply: { code: 250 }, catchAllReply: { code: 550, message: 'Unrouteable address' } });
    expect(relay.lines.filter((l) => /^(RCPT|RSET|MAIL)/.test(l))).toEqual([
      'MAIL FROM:<check@verifier.test>',
      'RCPT TO:<alice@one.test>',
      'RCPT TO:<zz9q@one.test>',
      'RSET',
      'MAIL FROM:<check@verifier.test>',
      'RCPT TO:<zz9q@one.test>',
    ]);
    await relay.stop();

    const v = verifier();
    expect((await v.verify('alice@one.test')).verdict).toMatchObject({ status: 'deliverable', risk_level: 'low', catch_all: false });
    expect((await v.verify('anyone@oneall.test')).verdict).toMatchObject({ status: 'catch-all', catch_all: true });
  });
});
