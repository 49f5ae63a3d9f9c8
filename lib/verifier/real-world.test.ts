import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRealWorldPeers, type RealWorldPeers } from '../../test/peers/real-world';
import { createDnsResolver } from './dns';
import { createVerifier, type VerifierDeps } from './verify';

// Verdicts against scripted servers that replay the big providers' and gateways' real replies
// (test/peers/real-world.ts quotes each source), with dnsmasq for the DNS cases.
let peers: RealWorldPeers;
let port = 0;
let dns: { server: string };
let lying: { server: string };

beforeAll(async () => {
  peers = await startRealWorldPeers();
  ({ port, dns, lying } = peers);
});

afterAll(async () => {
  await peers?.stop();
});

function verifier(overrides: Partial<VerifierDeps> = {}) {
  return createVerifier({
    dns: createDnsResolver({ servers: [dns.server], timeoutMs: 1000, canaries: ['canary.test'] }),
    smtp: { port, heloName: 'verifier.test', mailFrom: 'check@verifier.test', connectTimeoutMs: 1000, commandTimeoutMs: 2000 },
    allowPrivateNetworks: true,
    perDomainConcurrency: 2,
    globalConcurrency: 10,
    greylistRetryMs: 1000,
    ...overrides,
  });
}

describe('verdicts from the big providers', () => {
  it("calls Yahoo's 554 delivery error: dd undeliverable and names Yahoo", async () => {
    const { verdict } = await verifier().verify('nobody@yahoo.test');
    expect(verdict).toMatchObject({ status: 'undeliverable', reason: 'rejected_email', mailbox_provider: 'yahoo', provider: 'yahoo.test' });
    expect(verdict.evidence).toMatchObject({
      smtp_code: 554,
      smtp_enhanced_code: null,
      smtp_message: expect.stringContaining("doesn't have a yahoo.com account"),
    });
    // the made-up address was refused the same way, so the 250 for alice means something
    expect((await verifier().verify('alice@yahoo.test')).verdict).toMatchObject({
      status: 'deliverable',
      risk_level: 'low',
      catch_all: false,
      mailbox_provider: 'yahoo',
    });
  });

  it('reads Microsoft 365 edge blocking (550 5.4.1) as a missing mailbox, and a 250 there as real', async () => {
    expect((await verifier().verify('nobody@microsoft.test')).verdict).toMatchObject({
      status: 'undeliverable',
      reason: 'rejected_email',
      mailbox_provider: 'microsoft',
    });
    expect((await verifier().verify('alice@microsoft.test')).verdict).toMatchObject({ status: 'deliverable', mailbox_provider: 'microsoft' });
  });

  it('does not call a gateway that accepts everyone deliverable or catch-all: unknown, provider_unverifiable', async () => {
    const { verdict } = await verifier().verify('anyone@mimecast.test');
    expect(verdict).toMatchObject({
      status: 'unknown',
      valid: true,
      deliverable: false,
      catch_all: false,
      reason: 'unavailable_smtp',
      sub_reason: 'provider_unverifiable',
      mailbox_provider: 'mimecast',
    });
  });

  it('calls a full Gmail mailbox risky (mailbox_full), never undeliverable', async () => {
    const v = verifier();
    expect((await v.verify('full@gmail.test')).verdict).toMatchObject({
      status: 'risky',
      valid: true,
      reason: 'low_quality',
      sub_reason: 'mailbox_full',
      mailbox_provider: 'google',
    });
    expect((await v.verify('gone@gmail.test')).verdict).toMatchObject({ status: 'undeliverable', reason: 'rejected_email', sub_reason: null });
  });

  it('answers a Spamhaus block with unknown/ip_blocklisted, never undeliverable', async () => {
    const { verdict } = await verifier().verify('alice@spamhaus.test');
    expect(verdict).toMatchObject({
      status: 'unknown',
      reason: 'unavailable_smtp',
      sub_reason: 'ip_blocklisted',
      evidence: { smtp_code: 554, smtp_enhanced_code: '5.7.1' },
    });
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
    expect((await v.verify('bob@tls.test')).verdict).toMatchObject({
      status: 'undeliverable',
      reason: 'rejected_email',
      evidence: { tls: true, smtp_code: 550 },
    });
  });

  it('answers unknown/tls_required when TLS is required and the handshake fails', async () => {
    const { verdict } = await verifier().verify('alice@badtls.test');
    expect(verdict).toMatchObject({ status: 'unknown', sub_reason: 'tls_required', evidence: { tls: false, smtp_code: 530, smtp_enhanced_code: '5.7.0' } });
  });

  it("treats postscreen's first-connection 450 4.3.2 as ask-again-later, then answers", async () => {
    const v = verifier();
    const first = await v.verify('alice@postscreen.test');
    expect(first.retryAfterMs).toBe(1000);
    expect(first.verdict).toMatchObject({
      status: 'unknown',
      reason: 'unavailable_smtp',
      sub_reason: 'try_again_later',
      evidence: { smtp_code: 450, smtp_enhanced_code: '4.3.2' },
    });
    const second = await v.verify('alice@postscreen.test');
    expect(second.retryAfterMs).toBeUndefined();
    expect(second.verdict).toMatchObject({ status: 'deliverable' });
  });
});

describe('DNS as it is out there', () => {
  it('calls a domain whose MX hosts do not resolve undeliverable (no_mx, mx_unresolvable) with evidence', async () => {
    const { verdict } = await verifier().verify('someone@dangling.test');
    expect(verdict).toMatchObject({
      status: 'undeliverable',
      reason: 'no_mx',
      sub_reason: 'mx_unresolvable',
      details: { domain_exists: true, mx_record: true },
    });
    expect(verdict.evidence).toMatchObject({
      attempts: 0,
      smtp_failure: null,
      dns_failure: 'mx.gone.dangling.test: NXDOMAIN; mx2.gone.dangling.test: NXDOMAIN',
    });
  });

  it('follows an MX host name that is a CNAME, and skips a dead host of equal preference', async () => {
    expect((await verifier().verify('nobody@cnamed.test')).verdict).toMatchObject({
      status: 'undeliverable',
      reason: 'rejected_email',
      evidence: { mx_host: 'mx-alias.cnamed.test' },
    });
    const { verdict } = await verifier().verify('nobody@halfdead.test');
    expect(verdict).toMatchObject({ status: 'undeliverable', reason: 'rejected_email', evidence: { smtp_code: 554 } });
    expect(verdict.evidence!.attempts).toBeGreaterThanOrEqual(1);
  });

  it('reaches an MX host that has only an AAAA record', async () => {
    expect((await verifier().verify('alice@v6only.test')).verdict).toMatchObject({
      status: 'deliverable',
      evidence: { mx_host: 'mx.v6only.test', smtp_code: 250 },
    });
    expect((await verifier().verify('bob@v6only.test')).verdict).toMatchObject({ status: 'undeliverable', reason: 'rejected_email' });
  });

  it('answers SERVFAIL with unknown/dns_failure, never invalid', async () => {
    const { verdict } = await verifier().verify('someone@servfail.test');
    expect(verdict).toMatchObject({ status: 'unknown', valid: true, sub_reason: 'dns_failure', details: { domain_exists: false } });
    expect(verdict.evidence?.dns_failure).toBe('ESERVFAIL');
    // the MX record is there, but its host name cannot be looked up: still DNS's failure
    const host = (await verifier().verify('someone@mxfail.test')).verdict;
    expect(host).toMatchObject({
      status: 'unknown',
      reason: 'no_connect',
      sub_reason: 'dns_failure',
      evidence: { attempts: 0, dns_failure: 'mx.servfail.test: ESERVFAIL' },
    });
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
      dns: {
        ...createDnsResolver({ servers: [lying.server], canaries: ['gmail.com'] }),
        mailRoute: async () => ({ kind: 'mx', hosts: [{ exchange: 'mx.gone.test', priority: 10 }] }),
      },
      smtp: { port, heloName: 'verifier.test', mailFrom: 'check@verifier.test', connectTimeoutMs: 1000, commandTimeoutMs: 1000 },
      allowPrivateNetworks: true,
      perDomainConcurrency: 2,
      globalConcurrency: 10,
    }).verify('x@gone.test');
    expect(dangling.verdict).toMatchObject({ status: 'unknown', sub_reason: 'resolver_unreliable' });
  });
});
