import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDnsmasq, type DnsPeer } from '../../test/peers/dnsmasq';
import { startPostfix, type PostfixPeer } from '../../test/peers/postfix';
import { testCertificate } from '../../test/peers/scripted-smtp';
import { createDnsResolver } from './dns';
import { createVerifier } from './verify';

// A real Postfix as large sites run it: postscreen with a greet pause and its after-220 tests in
// front of smtpd, and TLS required (smtpd_tls_security_level = encrypt).
let dns: DnsPeer;
let postfix: PostfixPeer;

beforeAll(async () => {
  dns = await startDnsmasq(['mx-host=screened.test,mx.screened.test,10', 'host-record=mx.screened.test,127.0.0.1']);
  postfix = await startPostfix({
    mailboxes: ['alice@screened.test'],
    postscreen: { greetWaitS: 1, afterGreetingTests: true },
    tls: { ...testCertificate(), required: true },
  });
});

afterAll(async () => {
  await postfix?.stop();
  await dns?.stop();
});

const verifier = () =>
  createVerifier({
    dns: createDnsResolver({ servers: [dns.server], timeoutMs: 1000 }),
    smtp: { port: postfix.port, heloName: 'verifier.test', mailFrom: 'check@verifier.test', connectTimeoutMs: 1000, commandTimeoutMs: 4000 },
    allowPrivateNetworks: true,
    perDomainConcurrency: 2,
    globalConcurrency: 10,
    greylistRetryMs: 1000,
  });

describe('verify against Postfix with postscreen and TLS required', () => {
  it("waits out the greet pause, meets postscreen's first-connection 450 4.3.2, and answers on the next try over TLS", async () => {
    const v = verifier();
    const first = await v.verify('alice@screened.test');
    expect(first.retryAfterMs).toBe(1000);
    expect(first.verdict).toMatchObject({
      status: 'unknown',
      reason: 'unavailable_smtp',
      sub_reason: 'try_again_later',
      evidence: { smtp_code: 450, smtp_enhanced_code: '4.3.2' },
    });
    const second = await v.verify('alice@screened.test');
    expect(second.retryAfterMs).toBeUndefined();
    expect(second.verdict).toMatchObject({ status: 'deliverable', evidence: { tls: true, smtp_code: 250 } });
    expect((await v.verify('nobody@screened.test')).verdict).toMatchObject({
      status: 'undeliverable',
      reason: 'rejected_email',
      evidence: { tls: true, smtp_enhanced_code: '5.1.1' },
    });
  });
});
