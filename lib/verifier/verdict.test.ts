import { describe, expect, it } from 'vitest';
import type { MailRoute } from './dns';
import { checkSyntax } from './syntax';
import { decideVerdict, type Facts, type SmtpFacts } from './verdict';

const mx: MailRoute = { kind: 'mx', hosts: [{ exchange: 'mx.example.test', priority: 10 }] };

function facts(overrides: Partial<Facts> = {}, smtp: Partial<SmtpFacts> | null = {}): Facts {
  const email = overrides.email ?? 'alice@example.test';
  return {
    email,
    syntax: checkSyntax(email),
    disposable: false,
    role: false,
    free: false,
    didYouMean: null,
    route: mx,
    mxHost: 'mx.example.test',
    timedOut: false,
    mailboxProvider: null,
    dnsProblem: null,
    smtp: smtp && { meaning: 'accepted', failure: null, catchAll: false, attempts: 1, reply: { code: 250, enhanced: '2.1.5', message: 'Ok' }, ...smtp },
    ...overrides,
  };
}

describe('decideVerdict', () => {
  it('calls an accepted mailbox on a non-catch-all domain deliverable', () => {
    const v = decideVerdict(facts());
    expect(v).toMatchObject({ status: 'deliverable', reason: 'accepted_email', deliverable: true, valid: true, risk_level: 'low', provider: 'example.test' });
    expect(v.score).toBeGreaterThanOrEqual(80);
    expect(v.evidence).toEqual({
      mx_host: 'mx.example.test',
      smtp_code: 250,
      smtp_enhanced_code: '2.1.5',
      smtp_message: 'Ok',
      smtp_failure: null,
      attempts: 1,
      tls: false,
      dns_failure: null,
      control_code: null,
      control_enhanced_code: null,
      control_message: null,
      postmaster_code: null,
      postmaster_message: null,
    });
    expect(v.details).toEqual({ syntax_valid: true, domain_exists: true, mx_record: true, smtp_valid: true });
  });

  it('scores a rejected mailbox 0', () => {
    const v = decideVerdict(facts({}, { meaning: 'rejected', reply: { code: 550, enhanced: '5.1.1', message: 'User unknown' } }));
    expect(v).toMatchObject({ status: 'undeliverable', reason: 'rejected_email', score: 0, valid: false });
  });

  it('says unknown with the reason, not a guess, when the server would not say', () => {
    expect(decideVerdict(facts({}, { meaning: null, failure: 'timeout', reply: null }))).toMatchObject({ status: 'unknown', reason: 'timeout' });
    expect(decideVerdict(facts({}, { meaning: null, failure: 'no_connect', reply: null }))).toMatchObject({ status: 'unknown', reason: 'no_connect' });
    expect(decideVerdict(facts({}, { meaning: 'transient' }))).toMatchObject({ status: 'unknown', reason: 'unavailable_smtp' });
    expect(decideVerdict(facts({ route: { kind: 'unknown', error: 'ETIMEOUT' } }, null))).toMatchObject({ status: 'unknown', reason: 'timeout' });
  });

  it('keeps every combination of facts self-consistent', () => {
    const routes: MailRoute[] = [mx, { kind: 'nxdomain' }, { kind: 'null_mx' }, { kind: 'no_mail' }, { kind: 'unknown', error: 'ESERVFAIL' }];
    const meanings = ['accepted', 'rejected', 'transient', 'backoff', 'blocked', null] as const;
    for (const route of routes)
      for (const meaning of meanings)
        for (const role of [false, true])
          for (const catchAll of [true, false, null])
            for (const email of ['alice@example.test', 'not an email']) {
              const v = decideVerdict(facts({ email, route, role }, { meaning, catchAll }));
              if (v.deliverable) expect(v.score).toBeGreaterThanOrEqual(80);
              if (v.status === 'undeliverable') expect([v.score, v.valid, v.deliverable]).toEqual([0, false, false]);
              if (v.status === 'deliverable' || v.status === 'role-based') expect(v.details.smtp_valid).toBe(true);
              expect(v.catch_all).toBe(v.status === 'catch-all');
              if (v.catch_all) expect([catchAll, v.details.smtp_valid]).toEqual([true, true]);
              expect(v.confidence).toBeGreaterThanOrEqual(0);
              expect(v.confidence).toBeLessThanOrEqual(100);
            }
  });
});
