import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDnsmasq, type DnsPeer } from '../../test/peers/dnsmasq';
import { startPostfix, type PostfixPeer } from '../../test/peers/postfix';
import { startRecordingRelay, startTcpPeer, type RecordingRelay, type TcpPeer } from '../../test/peers/tcp';
import { createDnsResolver } from './dns';
import { createLocalPoliteness } from './politeness';
import { createVerifier, deadline, type VerifierDeps } from './verify';

// Real peers: dnsmasq answers the DNS, a private Postfix instance answers SMTP on 127.0.0.1,
// and two node servers on 127.0.0.2/127.0.0.3 play a silent and a hanging-up server.
let dns: DnsPeer;
let postfix: PostfixPeer;
let silent: TcpPeer;
let drop: TcpPeer;
let relay: RecordingRelay;

const ZONE = [
  ...['example', 'catchall', 'grey', 'busy'].flatMap((d) => [`mx-host=${d}.test,mx.${d}.test,10`, `host-record=mx.${d}.test,127.0.0.1`]),
  'host-record=aonly.test,127.0.0.1',
  'mx-host=nullmx.test,.,0',
  'mx-host=silent.test,mx.silent.test,10',
  'host-record=mx.silent.test,127.0.0.2',
  'mx-host=drop.test,mx.drop.test,10',
  'host-record=mx.drop.test,127.0.0.3',
  // behind a relay that records the commands: counts the verifier's catch-all probes
  ...['counted', 'counted-all'].flatMap((d) => [`mx-host=${d}.test,mx.${d}.test,10`, `host-record=mx.${d}.test,127.0.0.4`]),
];

beforeAll(async () => {
  dns = await startDnsmasq(ZONE);
  postfix = await startPostfix({
    mailboxes: ['alice@example.test', 'info@example.test', 'carol@aonly.test', 'bob@grey.test', ...Array.from({ length: 10 }, (_, i) => `m${i}@counted.test`)],
    catchAllDomains: ['catchall.test', 'counted-all.test'],
    greylistDomains: ['grey.test'],
    busyDomains: ['busy.test'],
  });
  silent = await startTcpPeer('silent', '127.0.0.2', postfix.port);
  drop = await startTcpPeer('drop', '127.0.0.3', postfix.port);
  relay = await startRecordingRelay('127.0.0.4', postfix.port, postfix.port);
});

afterAll(async () => {
  await Promise.all([silent?.stop(), drop?.stop(), relay?.stop()]);
  await postfix?.stop();
  await dns?.stop();
});

function verifier(overrides: Partial<VerifierDeps> = {}) {
  return createVerifier({
    dns: createDnsResolver({ servers: [dns.server], timeoutMs: 1000 }),
    smtp: { port: postfix.port, heloName: 'verifier.test', mailFrom: 'check@verifier.test', connectTimeoutMs: 2000, commandTimeoutMs: 1000 },
    allowPrivateNetworks: true,
    perDomainConcurrency: 2,
    globalConcurrency: 10,
    ...overrides,
  });
}

describe('verify against real DNS and SMTP peers', () => {
  it('calls an existing mailbox deliverable', async () => {
    const { verdict, retryAfterMs } = await verifier().verify('alice@example.test');
    expect(retryAfterMs).toBeUndefined();
    expect(verdict).toMatchObject({ status: 'deliverable', reason: 'accepted_email', deliverable: true, catch_all: false, provider: 'example.test' });
    expect(verdict.evidence).toMatchObject({ mx_host: 'mx.example.test', smtp_code: 250, smtp_enhanced_code: '2.1.5', attempts: 1 });
  });

  it('calls an unknown mailbox undeliverable on 550 5.1.1', async () => {
    const { verdict } = await verifier().verify('nobody@example.test');
    expect(verdict).toMatchObject({ status: 'undeliverable', reason: 'rejected_email', score: 0 });
    expect(verdict.evidence).toMatchObject({ smtp_code: 550, smtp_enhanced_code: '5.1.1' });
  });

  it('recognises a catch-all domain and reuses the answer', async () => {
    const v = verifier();
    expect((await v.verify('anyone@catchall.test')).verdict).toMatchObject({ status: 'catch-all', reason: 'accept_all', catch_all: true });
    expect((await v.verify('someone.else@catchall.test')).verdict).toMatchObject({ status: 'catch-all', catch_all: true });
  });

  it('asks one made-up address per domain, even when many conversations start at once', async () => {
    const v = verifier({ perDomainConcurrency: 4 });
    relay.lines.length = 0;
    const addresses = [
      ...Array.from({ length: 20 }, (_, i) => `m${i}@counted.test`), // m0-m9 exist, m10-m19 do not
      ...Array.from({ length: 20 }, (_, i) => `x${i}@counted-all.test`),
    ];
    const outcomes = await Promise.all(addresses.map((a) => v.verify(a)));
    const statuses = outcomes.map((o) => o.verdict.status);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill('deliverable'));
    expect(statuses.slice(10, 20)).toEqual(Array(10).fill('undeliverable'));
    expect(statuses.slice(20)).toEqual(Array(20).fill('catch-all'));
    expect(outcomes.slice(0, 10).every((o) => o.verdict.catch_all === false)).toBe(true);
    const rcpts = relay.lines.filter((l) => /^RCPT TO:/i.test(l));
    const madeUp = rcpts.filter((l) => /<[0-9a-f]{16}@/.test(l));
    // postmaster@ only where an address was refused, at most once per domain (docs/verdicts.md)
    const postmasters = rcpts.filter((l) => /<postmaster@/i.test(l));
    expect(postmasters).toEqual(['RCPT TO:<postmaster@counted.test>']);
    expect(rcpts).toHaveLength(addresses.length + 3);
    expect(madeUp.map((l) => l.split('@')[1]).sort()).toEqual(['counted-all.test>', 'counted.test>']);
    expect(relay.lines.some((l) => /^DATA/i.test(l))).toBe(false);
  });

  it('returns greylisting as retry-later, does not knock again before the retry time, then answers', async () => {
    let clock = 1_000_000;
    const v = verifier({ greylistRetryMs: 1000, now: () => clock });
    const first = await v.verify('bob@grey.test');
    expect(first.retryAfterMs).toBe(1000);
    expect(first.verdict).toMatchObject({ status: 'unknown', reason: 'unavailable_smtp' });
    expect(first.verdict.evidence).toMatchObject({ smtp_code: 450, smtp_enhanced_code: '4.2.0' });
    clock += 400;
    const early = await v.verify('bob@grey.test');
    expect(early).toMatchObject({ retryAfterMs: 600, verdict: { status: 'unknown', sub_reason: 'greylisted', evidence: { attempts: 0 } } });
    clock += 600;
    const second = await v.verify('bob@grey.test');
    expect(second.retryAfterMs).toBeUndefined();
    expect(second.verdict.status).toBe('deliverable');
  });

  it('backs a domain off after 421 too many connections, without connecting again', async () => {
    let clock = 1_000_000;
    const v = verifier({ backoffMs: 60_000, now: () => clock });
    const first = await v.verify('a@busy.test');
    expect(first).toMatchObject({ retryAfterMs: 60_000, verdict: { status: 'unknown', evidence: { smtp_code: 421, attempts: 1 } } });
    clock += 10_000;
    const second = await v.verify('b@busy.test');
    expect(second).toMatchObject({ retryAfterMs: 50_000, verdict: { status: 'unknown', evidence: { attempts: 0 } } });
    clock += 50_001;
    expect((await v.verify('c@busy.test')).verdict.evidence?.attempts).toBe(1);
  });

  it('holds a back-off for every verifier that shares the politeness (one process, many jobs)', async () => {
    const politeness = createLocalPoliteness();
    const first = await verifier({ politeness }).verify('a@busy.test');
    expect(first.verdict.evidence).toMatchObject({ smtp_code: 421, attempts: 1 });
    const other = await verifier({ politeness }).verify('b@busy.test');
    expect(other.retryAfterMs).toBeGreaterThan(0);
    expect(other.verdict).toMatchObject({ status: 'unknown', evidence: { attempts: 0 } });
    expect((await verifier().verify('c@busy.test')).verdict.evidence?.attempts).toBe(1);
  });

  it('delivers to the A record when there is no MX', async () => {
    const { verdict } = await verifier().verify('carol@aonly.test');
    expect(verdict).toMatchObject({ status: 'deliverable', details: { mx_record: true }, evidence: { mx_host: 'aonly.test' } });
  });

  it('answers no_mx for a null MX and invalid_domain for NXDOMAIN', async () => {
    expect((await verifier().verify('x@nullmx.test')).verdict).toMatchObject({ status: 'undeliverable', reason: 'no_mx', details: { domain_exists: true } });
    expect((await verifier().verify('x@nosuchdomain.test')).verdict).toMatchObject({
      status: 'undeliverable',
      reason: 'invalid_domain',
      details: { domain_exists: false },
    });
  });

  it('answers unknown/timeout when the server never speaks', async () => {
    const { verdict } = await verifier().verify('x@silent.test');
    expect(verdict).toMatchObject({ status: 'unknown', reason: 'timeout', evidence: { mx_host: 'mx.silent.test', smtp_code: null } });
  });

  it('stops at the caller deadline', async () => {
    const started = Date.now();
    const v = verifier({
      smtp: { port: postfix.port, heloName: 'verifier.test', mailFrom: 'check@verifier.test', connectTimeoutMs: 5000, commandTimeoutMs: 10_000 },
    });
    const { verdict } = await v.verify('x@silent.test', { signal: deadline(300) });
    expect(verdict).toMatchObject({ status: 'unknown', reason: 'timeout' });
    expect(Date.now() - started).toBeLessThan(4000); // the 300 ms deadline, before the 5 s connect timeout
  });

  it('answers unknown/unavailable_smtp when the server hangs up', async () => {
    expect((await verifier().verify('x@drop.test')).verdict).toMatchObject({ status: 'unknown', reason: 'unavailable_smtp' });
  });

  it('stops early for a disposable address and flags role accounts', async () => {
    const disposable = (await verifier().verify('someone@mailinator.com')).verdict;
    expect(disposable).toMatchObject({ status: 'risky', reason: 'disposable_email', disposable: true, evidence: null });
    expect((await verifier().verify('info@example.test')).verdict).toMatchObject({
      status: 'role-based',
      reason: 'role_account',
      role: true,
      deliverable: true,
    });
  });

  it('answers invalid_email without any lookup', async () => {
    expect((await verifier().verify('not an address')).verdict).toMatchObject({ status: 'undeliverable', reason: 'invalid_email', evidence: null });
  });

  it('refuses an MX on a private address unless allowed', async () => {
    const { verdict } = await verifier({ allowPrivateNetworks: false }).verify('alice@example.test');
    expect(verdict).toMatchObject({ status: 'unknown', reason: 'no_connect', evidence: { mx_host: 'mx.example.test', attempts: 0, smtp_code: null } });
  });
});
