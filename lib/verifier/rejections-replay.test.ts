import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDnsmasq, type DnsPeer } from '../../test/peers/dnsmasq';
import { startScriptedSmtp, type ScriptedSmtp } from '../../test/peers/scripted-smtp';
import { createDnsResolver } from './dns';
import { CORPUS, isRight, controlFor, pairedExpectation, postmasterFor, type CorpusEntry } from '../../test/fixtures/rejections/corpus';
import { createVerifier } from './verify';

// A sample of the corpus (test/fixtures/rejections) through the real SMTP session: one scripted
// server answers RCPT at r<N>.test with reply N, and the made-up address and postmaster@ as that
// server would (corpus.ts: controlFor, postmasterFor); dnsmasq points every r<N>.test at it.
// Then the positive control: postmaster accepted, refused the same, refused otherwise, not answered.
const PER_CLASS = 4;
const SAMPLE: CorpusEntry[] = [...new Set(CORPUS.map((entry) => entry.class))].flatMap((name) => {
  // 5xx only: a deferral asks no made-up address (its evidence has no control reply)
  const entries = CORPUS.filter((entry) => entry.class === name && entry.reply[0]!.startsWith('5'));
  // spread over the class, not its first few
  const step = Math.max(1, Math.floor(entries.length / PER_CLASS));
  return entries.filter((_, i) => i % step === 0).slice(0, PER_CLASS);
});
const UNKNOWN_USER = (a: string) => `550 5.1.1 <${a}>: Recipient address rejected: User unknown in virtual mailbox table`;
const POSTMASTER_POLICY = '550 5.7.1 Mail to postmaster is not accepted from unknown senders';
const SENDMAIL_UNKNOWN = (a: string) => `550 5.1.1 <${a}>... User unknown`;
const special: Record<string, (address: string) => string | string[] | null> = {
  // Gmail refuses a disabled account otherwise than a made-up one
  disabled: (a) =>
    a.startsWith('gone@')
      ? ['550-5.2.1 The email account that you tried to reach is disabled. Learn more at', '550 5.2.1 https://support.google.com/mail/?p=DisabledUser - gsmtp']
      : a.startsWith('postmaster@')
        ? '250 2.1.5 Ok'
        : UNKNOWN_USER(a),
  // a sender check at RCPT (Sendmail's "<x>... User unknown" about our MAIL FROM), for every recipient
  sendercheck: () => '550 5.1.1 <check@verifier.test>... User unknown',
  // "550 Rejected" for every unknown address: the server's way of saying so, postmaster accepted
  bare: (a) => (a.startsWith('alice@') || a.startsWith('postmaster@') ? '250 2.1.5 Ok' : '550 Rejected'),
  // every recipient refused alike, postmaster too: the server refuses us, in bare words or in "User unknown"
  'pm-same': () => '550 Rejected',
  'pm-same-words': (a) => SENDMAIL_UNKNOWN(a),
  // postmaster refused by policy, in other words: no positive control either way
  'pm-otherwise': (a) => (a.startsWith('postmaster@') ? POSTMASTER_POLICY : '550 Rejected'),
  'pm-otherwise-words': (a) => (a.startsWith('postmaster@') ? POSTMASTER_POLICY : SENDMAIL_UNKNOWN(a)),
  // the server hangs up at postmaster's RCPT: the address's answer stands alone
  'pm-silent': (a) => (a.startsWith('postmaster@') ? null : '550 Rejected'),
  'pm-silent-words': (a) => (a.startsWith('postmaster@') ? null : SENDMAIL_UNKNOWN(a)),
};

let smtp: ScriptedSmtp;
let dns: DnsPeer;

beforeAll(async () => {
  smtp = await startScriptedSmtp({
    rcpt: (address) => {
      const domain = address.slice(address.indexOf('@') + 1).replace(/\.test$/, '');
      if (special[domain]) return special[domain](address);
      const entry = SAMPLE[Number(domain.slice(1))]!;
      return address.startsWith('someone@') ? entry.reply : address.startsWith('postmaster@') ? postmasterFor(entry) : controlFor(entry);
    },
  });
  const domains = [...SAMPLE.map((_, i) => `r${i}`), ...Object.keys(special)];
  dns = await startDnsmasq([`host-record=mx.replay.test,${smtp.host}`, ...domains.map((d) => `mx-host=${d}.test,mx.replay.test,10`)]);
});

afterAll(async () => {
  await smtp?.stop();
  await dns?.stop();
});

function verifier() {
  return createVerifier({
    dns: createDnsResolver({ servers: [dns.server], timeoutMs: 1000 }),
    smtp: { port: smtp.port, heloName: 'verifier.test', mailFrom: 'check@verifier.test', connectTimeoutMs: 1000, commandTimeoutMs: 2000 },
    allowPrivateNetworks: true,
    perDomainConcurrency: 2,
    globalConcurrency: 10,
    greylistRetryMs: 1000,
  });
}

describe('real rejection replies through the SMTP session', () => {
  it(`answers a sample of ${PER_CLASS} replies per class as the corpus expects, both replies in the evidence`, async () => {
    const v = verifier();
    const wrong: string[] = [];
    for (const [i, entry] of SAMPLE.entries()) {
      const { verdict, retryAfterMs } = await v.verify(`someone@r${i}.test`);
      const want = pairedExpectation(entry);
      if (!isRight(entry, verdict, want))
        wrong.push(`${entry.reply.join(' ')}: ${verdict.status}/${verdict.sub_reason}, want ${want.status}/${want.sub_reason}`);
      expect(verdict.evidence).toMatchObject({ smtp_code: Number(entry.reply[0]!.slice(0, 3)), control_code: Number(controlFor(entry)[0]!.slice(0, 3)) });
      // a rate is asked again later, as greylisting is
      if (verdict.sub_reason === 'rate_limited') expect(retryAfterMs).toBe(1000);
    }
    expect(SAMPLE.length).toBeGreaterThanOrEqual(35);
    expect(wrong).toEqual([]);
  });

  it('calls an address refused otherwise than the made-up one unknown (rejection_differs), keeping both replies', async () => {
    const { verdict } = await verifier().verify('gone@disabled.test');
    expect(verdict).toMatchObject({
      status: 'unknown',
      reason: 'unavailable_smtp',
      sub_reason: 'rejection_differs',
      evidence: { smtp_code: 550, smtp_enhanced_code: '5.2.1', control_code: 550, control_enhanced_code: '5.1.1' },
    });
    expect(verdict.evidence!.control_message).toMatch(/User unknown in virtual mailbox table/);
  });

  it('calls a bare "550 Rejected" undeliverable only once the made-up address got the same and postmaster was accepted, and with less confidence', async () => {
    const { verdict } = await verifier().verify('bob@bare.test');
    expect(verdict).toMatchObject({
      status: 'undeliverable',
      reason: 'rejected_email',
      confidence: 80,
      evidence: { smtp_message: 'Rejected', control_message: 'Rejected', postmaster_code: 250 },
    });
    // and the made-up address's refusal makes a 250 there mean something
    expect((await verifier().verify('alice@bare.test')).verdict).toMatchObject({ status: 'deliverable', risk_level: 'low', catch_all: false });
  });

  it('never calls an address undeliverable for a "User unknown" that names our sender, though the made-up address got it too', async () => {
    const { verdict } = await verifier().verify('bob@sendercheck.test');
    expect(verdict).toMatchObject({
      status: 'unknown',
      sub_reason: 'sender_rejected',
      evidence: { smtp_enhanced_code: '5.1.1', control_enhanced_code: '5.1.1' },
    });
  });

  describe('postmaster@ as the positive control, in the same conversation', () => {
    /** The RCPT commands of the conversations about one domain, in order, with their connection. */
    const rcpts = (domain: string) =>
      smtp.commands.filter((c) => c.line.startsWith('RCPT') && c.line.includes(`@${domain}>`)).map((c) => [c.connection, c.line.slice(9, c.line.indexOf('@'))]);

    it('asks postmaster after the made-up address, in the same connection, once per domain', async () => {
      const v = verifier();
      await v.verify('bob@pm-same.test');
      await v.verify('carol@pm-same.test');
      const asked = rcpts('pm-same.test');
      expect(asked.map(([, local]) => local)).toEqual(['bob', expect.stringMatching(/^[0-9a-f]{16}$/), 'postmaster', 'carol']);
      expect(new Set(asked.slice(0, 3).map(([connection]) => connection)).size).toBe(1);
    });

    it('refused the same: a bare refusal is about us; words that say "User unknown" still decide', async () => {
      expect((await verifier().verify('bob@pm-same.test')).verdict).toMatchObject({
        status: 'unknown',
        reason: 'unavailable_smtp',
        sub_reason: 'postmaster_refused',
        evidence: { smtp_code: 550, control_code: 550, postmaster_code: 550 },
      });
      // a domain without a postmaster mailbox answers it as any missing one (a misconfiguration RFC 5321 forbids)
      expect((await verifier().verify('bob@pm-same-words.test')).verdict).toMatchObject({
        status: 'undeliverable',
        reason: 'rejected_email',
        confidence: 95,
        evidence: { smtp_code: 550, control_code: 550, postmaster_code: 550 },
      });
    });

    it('refused otherwise (by policy): no control; clear words still decide, bare ones stay unknown', async () => {
      expect((await verifier().verify('bob@pm-otherwise.test')).verdict).toMatchObject({
        status: 'unknown',
        sub_reason: 'unclear_rejection',
        evidence: { postmaster_code: 550, postmaster_message: expect.stringMatching(/postmaster/) },
      });
      expect((await verifier().verify('bob@pm-otherwise-words.test')).verdict).toMatchObject({
        status: 'undeliverable',
        reason: 'rejected_email',
        confidence: 95,
        evidence: { postmaster_code: 550 },
      });
    });

    it("not answered (the server hangs up at postmaster): the address's own answer stands, a bare one unknown", async () => {
      expect((await verifier().verify('bob@pm-silent.test')).verdict).toMatchObject({
        status: 'unknown',
        sub_reason: 'unclear_rejection',
        evidence: { smtp_message: 'Rejected', control_message: 'Rejected', postmaster_code: null },
      });
      expect((await verifier().verify('bob@pm-silent-words.test')).verdict).toMatchObject({
        status: 'undeliverable',
        evidence: { smtp_code: 550, postmaster_code: null },
      });
    });

    it('asks no postmaster when the address is accepted', async () => {
      const asked = () => smtp.commands.filter((c) => c.line.includes('postmaster@bare.test')).length;
      const before = asked();
      await verifier().verify('alice@bare.test');
      expect(asked()).toBe(before);
    });
  });
});
