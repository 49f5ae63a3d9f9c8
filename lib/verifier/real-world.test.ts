import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDnsmasq, type DnsPeer } from '../../test/peers/dnsmasq';
import { startScriptedSmtp, testCertificate, type ScriptedSmtp, type SmtpScript } from '../../test/peers/scripted-smtp';
import { createDnsResolver } from './dns';
import { createVerifier, type VerifierDeps } from './verify';

/*
 * Verdicts against servers that answer as the big providers, gateways and real MTAs do. Each
 * scripted server replays replies quoted from real transcripts (source beside each), listens on
 * its own loopback address with one shared port, and dnsmasq points each test domain at it.
 */
const unknownUser = (address: string) => `550 5.1.1 <${address}>: Recipient address rejected: User unknown in virtual mailbox table`;
const onlyAlice = (reject: (address: string) => string | string[]) => (address: string) => (address.startsWith('alice@') ? '250 2.1.5 Ok' : reject(address));

const SERVERS: Record<string, { mx: string; script: SmtpScript }> = {
  // hbattat/verifyEmail#30: "554 delivery error: dd This user doesn't have a yahoo.com account
  // (alexwillis2011@yahoo.com) [-5] - mta1325.mail.gq1.yahoo.com" (no enhanced code)
  yahoo: { mx: 'mta5.am0.yahoodns.net', script: { rcpt: onlyAlice((a) => `554 delivery error: dd This user doesn't have a yahoo.com account (${a}) [-5] - mta1325.mail.gq1.yahoo.com`) } },
  // Postfix smtpd_recipient_limit = 1 in front of a catch-all: the second RCPT gets "452 4.5.3"
  onercpt: { mx: 'mx.onercpt.test', script: { rcpt: (_a, inTransaction) => (inTransaction >= 1 ? '452 4.5.3 Error: too many recipients' : '250 2.1.5 Ok') } },
  // Postfix smtpd_tls_security_level = encrypt: "530 5.7.0 Must issue a STARTTLS command first"
  tls: { mx: 'mx.tls.test', script: { tls: { ...testCertificate(), required: true }, rcpt: onlyAlice(unknownUser) } },
  // TLS required, but the handshake fails: the plain-text retry meets the 530
  badtls: { mx: 'mx.badtls.test', script: { brokenTls: true, tls: { ...testCertificate(), required: true }, rcpt: onlyAlice(unknownUser) } },
  // postscreen after-220 tests: the first connection of a new client gets "450 4.3.2 Service
  // currently unavailable" (postscreen(8), postscreen_greet_action); later ones get through
  postscreen: { mx: 'mx.postscreen.test', script: { banner: (n) => (n === 0 ? ['450 4.3.2 Service currently unavailable'] : ['220-mx.postscreen.test ESMTP', '220 ready']), greetPauseMs: 300, rcpt: onlyAlice(unknownUser) } },
  // Mimecast accepts every recipient at its edge unless recipient validation is on (Reacher #1626)
  mimecast: { mx: 'eu-smtp-inbound-1.mimecast.com', script: {} },
  // Microsoft 365 with directory-based edge blocking: "550 5.4.1 Recipient address rejected: Access denied"
  microsoft: { mx: 'contoso-test.mail.protection.outlook.com', script: { rcpt: onlyAlice(() => '550 5.4.1 Recipient address rejected: Access denied. AS(201806281) [DB5EUR03FT012.eop-EUR03.prod.protection.outlook.com]') } },
  // Gmail: "452-4.2.2 The email account that you tried to reach is over quota" for a full
  // mailbox; "550-5.1.1 The email account that you tried to reach does not exist" otherwise
  gmail: { mx: 'gmail-smtp-in.l.google.com', script: { rcpt: (a) => a.startsWith('full@')
    ? ['452-4.2.2 The email account that you tried to reach is over quota. Please direct', '452 4.2.2 the recipient to https://support.google.com/mail/?p=OverQuotaTemp - gsmtp']
    : a.startsWith('alice@') ? '250 2.1.5 OK - gsmtp'
    : ['550-5.1.1 The email account that you tried to reach does not exist. Please try', '550 5.1.1 https://support.google.com/mail/?p=NoSuchUser - gsmtp'] } },
  // Postfix reject_rbl_client: "554 5.7.1 Service unavailable; Client host [x] blocked using zen.spamhaus.org"
  spamhaus: { mx: 'mx.spamhaus-listed.test', script: { rcpt: () => '554 5.7.1 Service unavailable; Client host [192.0.2.1] blocked using zen.spamhaus.org; https://www.spamhaus.org/query/ip/192.0.2.1' } },
};

let dns: DnsPeer;
let lying: DnsPeer;
let port = 0;
const servers: ScriptedSmtp[] = [];
const zone: string[] = [
  'host-record=canary.test,127.0.0.1',
  // dangling: the MX host name itself does not exist
  'mx-host=dangling.test,mx.gone.dangling.test,10',
  'mx-host=dangling.test,mx2.gone.dangling.test,20',
];

beforeAll(async () => {
  let n = 1;
  for (const [name, { mx, script }] of Object.entries(SERVERS)) {
    const server = await startScriptedSmtp(script, { host: `127.0.2.${n++}`, port });
    port = server.port;
    servers.push(server);
    zone.push(`mx-host=${name}.test,${mx},10`, `host-record=${mx},${server.host}`);
  }
  dns = await startDnsmasq(zone);
  // a resolver that denies every public name: NXDOMAIN for com, net and test alike
  lying = await startDnsmasq([], ['com', 'net', 'test']);
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await dns?.stop();
  await lying?.stop();
});

function verifier(overrides: Partial<VerifierDeps> = {}) {
  return createVerifier({
    dns: createDnsResolver({ servers: [dns.server], timeoutMs: 1000, canaries: ['canary.test'] }),
    smtp: { port, heloName: 'verifier.test', mailFrom: 'check@verifier.test', connectTimeoutMs: 1000, commandTimeoutMs: 2000 },
    allowPrivateNetworks: true, perDomainConcurrency: 2, globalConcurrency: 10, greylistRetryMs: 1000,
    ...overrides,
  });
}

describe('verdicts from the big providers', () => {
  it("calls Yahoo's 554 delivery error: dd undeliverable and names Yahoo", async () => {
    const { verdict } = await verifier().verify('nobody@yahoo.test');
    expect(verdict).toMatchObject({ status: 'undeliverable', reason: 'rejected_email', mailbox_provider: 'yahoo', provider: 'yahoo.test' });
    expect(verdict.evidence).toMatchObject({ smtp_code: 554, smtp_enhanced_code: null, smtp_message: expect.stringContaining("doesn't have a yahoo.com account") });
    // the made-up address was refused the same way, so the 250 for alice means something
    expect((await verifier().verify('alice@yahoo.test')).verdict).toMatchObject({ status: 'deliverable', risk_level: 'low', catch_all: false, mailbox_provider: 'yahoo' });
  });

  it('reads Microsoft 365 edge blocking (550 5.4.1) as a missing mailbox, and a 250 there as real', async () => {
    expect((await verifier().verify('nobody@microsoft.test')).verdict).toMatchObject({ status: 'undeliverable', reason: 'rejected_email', mailbox_provider: 'microsoft' });
    expect((await verifier().verify('alice@microsoft.test')).verdict).toMatchObject({ status: 'deliverable', mailbox_provider: 'microsoft' });
  });

  it('does not call a gateway that accepts everyone deliverable or catch-all: unknown, provider_unverifiable', async () => {
    const { verdict } = await verifier().verify('anyone@mimecast.test');
    expect(verdict).toMatchObject({ status: 'unknown', valid: true, deliverable: false, catch_all: false, reason: 'unavailable_smtp', sub_reason: 'provider_unverifiable', mailbox_provider: 'mimecast' });
  });

  it('calls a full Gmail mailbox risky (mailbox_full), never undeliverable', async () => {
    const v = verifier();
    expect((await v.verify('full@gmail.test')).verdict).toMatchObject({ status: 'risky', valid: true, reason: 'low_quality', sub_reason: 'mailbox_full', mailbox_provider: 'google' });
    expect((await v.verify('gone@gmail.test')).verdict).toMatchObject({ status: 'undeliverable', reason: 'rejected_email', sub_reason: null });
  });

  it('answers a Spamhaus block with unknown/ip_blocklisted, never undeliverable', async () => {
    const { verdict } = await verifier().verify('alice@spamhaus.test');
    expect(verdict).toMatchObject({ status: 'unknown', reason: 'unavailable_smtp', sub_reason: 'ip_blocklisted', evidence: { smtp_code: 554, smtp_enhanced_code: '5.7.1' } });
  });
});

describe('conversations real servers need', () => {
  it('asks the catch-all question in its own transaction: a catch-all behind a one-recipient limit is catch-all, not deliverable', async () => {
    const { verdict } = await verifier().verify('alice@onercpt.test');
    expect(verdict).toMatchObject({ status: 'catch-all', reason: 'accept_all', catch_all: true });
  });

  it('verifies over STARTTLS on a server that requires it, both ways', async () => {
    const v = verifier();
    expect((await v.verify('alice@tls.test')).verdict).toMatchObject({ status: 'deliverable', risk_level: 'low', evidence: { tls: true } });
    expect((await v.verify('bob@tls.test')).verdict).toMatchObject({ status: 'undeliverable', reason: 'rejected_email', evidence: { tls: true, smtp_code: 550 } });
  });

  it('answers unknown/tls_required when TLS is required and the handshake fails', async () => {
    const { verdict } = await verifier().verify('alice@badtls.test');
    expect(verdict).toMatchObject({ status: 'unknown', sub_reason: 'tls_required', evidence: { tls: false, smtp_code: 530, smtp_enhanced_code: '5.7.0' } });
  });

  it("treats postscreen's first-connection 450 4.3.2 as ask-again-later, then answers", async () => {
    const v = verifier();
    const first = await v.verify('alice@postscreen.test');
    expect(first.retryAfterMs).toBe(1000);
    expect(first.verdict).toMatchObject({ status: 'unknown', reason: 'unavailable_smtp', sub_reason: 'try_again_later', evidence: { smtp_code: 450, smtp_enhanced_code: '4.3.2' } });
    const second = await v.verify('alice@postscreen.test');
    expect(second.retryAfterMs).toBeUndefined();
    expect(second.verdict).toMatchObject({ status: 'deliverable' });
  });
});

describe('DNS as it is out there', () => {
  it('calls a domain whose MX hosts do not resolve undeliverable (no_mx, mx_unresolvable) with evidence', async () => {
    const { verdict } = await verifier().verify('someone@dangling.test');
    expect(verdict).toMatchObject({ status: 'undeliverable', reason: 'no_mx', sub_reason: 'mx_unresolvable', details: { domain_exists: true, mx_record: true } });
    expect(verdict.evidence).toMatchObject({ attempts: 0, smtp_failure: null, dns_failure: 'mx.gone.dangling.test: NXDOMAIN; mx2.gone.dangling.test: NXDOMAIN' });
  });

  it('keeps NXDOMAIN from a resolver that knows the canaries: invalid_domain', async () => {
    expect((await verifier().verify('x@nosuchdomain.test')).verdict).toMatchObject({ status: 'undeliverable', reason: 'invalid_domain' });
  });

  it('never calls gmail.com invalid on a resolver that denies everything: unknown, resolver_unreliable', async () => {
    const v = verifier({ dns: createDnsResolver({ servers: [lying.server], timeoutMs: 1000, canaries: ['gmail.com', 'canary.test'] }) });
    const { verdict } = await v.verify('someone@gmail.com');
    expect(verdict).toMatchObject({ status: 'unknown', valid: true, reason: 'unexpected_error', sub_reason: 'resolver_unreliable', score: 40 });
    expect(verdict.confidence).toBeLessThan(50);
    expect(verdict.evidence?.dns_failure).toMatch(/gmail\.com: NXDOMAIN, but the resolver denies gmail\.com, canary\.test \(NXDOMAIN\)/);
    // a dangling MX seen through that resolver proves nothing either
    const dangling = await createVerifier({
      dns: { ...createDnsResolver({ servers: [lying.server], canaries: ['gmail.com'] }), mailRoute: async () => ({ kind: 'mx', hosts: [{ exchange: 'mx.gone.test', priority: 10 }] }) },
      smtp: { port, heloName: 'verifier.test', mailFrom: 'check@verifier.test', connectTimeoutMs: 1000, commandTimeoutMs: 1000 },
      allowPrivateNetworks: true, perDomainConcurrency: 2, globalConcurrency: 10,
    }).verify('x@gone.test');
    expect(dangling.verdict).toMatchObject({ status: 'unknown', sub_reason: 'resolver_unreliable' });
  });
});
