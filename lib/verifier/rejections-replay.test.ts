import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDnsmasq, type DnsPeer } from '../../test/peers/dnsmasq';
import { startScriptedSmtp, type ScriptedSmtp } from '../../test/peers/scripted-smtp';
import { createDnsResolver } from './dns';
import { CORPUS, controlFor, pairedExpectation, type CorpusEntry } from '../../test/fixtures/rejections/corpus';
import { createVerifier } from './verify';

// A sample of the corpus (test/fixtures/rejections) through the real SMTP session: one scripted
// server answers RCPT at r<N>.test with reply N, and the made-up address as that server would
// (rejection.test.ts, controlFor); dnsmasq points every r<N>.test at it.
const PER_CLASS = 4;
const SAMPLE: CorpusEntry[] = [...new Set(CORPUS.map((entry) => entry.class))].flatMap((name) => {
  const entries = CORPUS.filter((entry) => entry.class === name);
  // spread over the class, not its first few
  const step = Math.max(1, Math.floor(entries.length / PER_CLASS));
  return entries.filter((_, i) => i % step === 0).slice(0, PER_CLASS);
});
const UNKNOWN_USER = (a: string) => `550 5.1.1 <${a}>: Recipient address rejected: User unknown in virtual mailbox table`;
const special: Record<string, (address: string) => string | string[]> = {
  // Gmail refuses a disabled account otherwise than a made-up one
  disabled: (a) => (a.startsWith('gone@') ? ['550-5.2.1 The email account that you tried to reach is disabled. Learn more at', '550 5.2.1 https://support.google.com/mail/?p=DisabledUser - gsmtp'] : UNKNOWN_USER(a)),
  // a sender check at RCPT (Sendmail's "<x>... User unknown" about our MAIL FROM), for every recipient
  sendercheck: () => '550 5.1.1 <check@verifier.test>... User unknown',
  // "550 Rejected" for every unknown address: the server's way of saying so
  bare: (a) => (a.startsWith('alice@') ? '250 2.1.5 Ok' : '550 Rejected'),
};

let smtp: ScriptedSmtp;
let dns: DnsPeer;

beforeAll(async () => {
  smtp = await startScriptedSmtp({
    rcpt: (address) => {
      const domain = address.slice(address.indexOf('@') + 1).replace(/\.test$/, '');
      if (special[domain]) return special[domain](address);
      const entry = SAMPLE[Number(domain.slice(1))]!;
      return address.startsWith('someone@') ? entry.reply : controlFor(entry);
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
    allowPrivateNetworks: true, perDomainConcurrency: 2, globalConcurrency: 10, greylistRetryMs: 1000,
  });
}

describe('real rejection replies through the SMTP session', () => {
  it(`answers a sample of ${PER_CLASS} replies per class as the corpus expects, both replies in the evidence`, async () => {
    const v = verifier();
    const wrong: string[] = [];
    for (const [i, entry] of SAMPLE.entries()) {
      const { verdict, retryAfterMs } = await v.verify(`someone@r${i}.test`);
      const want = pairedExpectation(entry);
      if (verdict.status !== want.status || verdict.sub_reason !== want.sub_reason) wrong.push(`${entry.reply.join(' ')}: ${verdict.status}/${verdict.sub_reason}, want ${want.status}/${want.sub_reason}`);
      expect(verdict.evidence).toMatchObject({ smtp_code: Number(entry.reply[0]!.slice(0, 3)), control_code: Number(controlFor(entry)[0]!.slice(0, 3)) });
      // a rate is asked again later, as greylisting is
      if (verdict.sub_reason === 'rate_limited') expect(retryAfterMs).toBe(1000);
    }
    expect(SAMPLE.length).toBeGreaterThanOrEqual(35);
    expect(wrong).toEqual([]);
  });

  it("calls an address refused otherwise than the made-up one unknown (rejection_differs), keeping both replies", async () => {
    const { verdict } = await verifier().verify('gone@disabled.test');
    expect(verdict).toMatchObject({ status: 'unknown', reason: 'unavailable_smtp', sub_reason: 'rejection_differs', evidence: { smtp_code: 550, smtp_enhanced_code: '5.2.1', control_code: 550, control_enhanced_code: '5.1.1' } });
    expect(verdict.evidence!.control_message).toMatch(/User unknown in virtual mailbox table/);
  });

  it('calls a bare "550 Rejected" undeliverable only once the made-up address got the same, and with less confidence', async () => {
    const { verdict } = await verifier().verify('bob@bare.test');
    expect(verdict).toMatchObject({ status: 'undeliverable', reason: 'rejected_email', confidence: 80, evidence: { smtp_message: 'Rejected', control_message: 'Rejected' } });
    // and the made-up address's refusal makes a 250 there mean something
    expect((await verifier().verify('alice@bare.test')).verdict).toMatchObject({ status: 'deliverable', risk_level: 'low', catch_all: false });
  });

  it('never calls an address undeliverable for a "User unknown" that names our sender, though the made-up address got it too', async () => {
    const { verdict } = await verifier().verify('bob@sendercheck.test');
    expect(verdict).toMatchObject({ status: 'unknown', sub_reason: 'sender_rejected', evidence: { smtp_enhanced_code: '5.1.1', control_enhanced_code: '5.1.1' } });
  });
});
