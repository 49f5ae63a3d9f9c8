import { describe, expect, it } from 'vitest';
import { sandboxVerdict } from '../verifier/sandbox';
import type { Verdict } from '../verifier/types';
import { readStoredDetails, storedDetails } from './stored-details';

const stored = (verdict: Verdict) => JSON.parse(storedDetails(verdict));

describe("a verdict's stored details", () => {
  it('are the same JSON for each of the sixteen plain details as JSON.stringify makes', () => {
    const fields = ['syntax_valid', 'domain_exists', 'mx_record', 'smtp_valid'] as const;
    for (let bits = 0; bits < 16; bits++) {
      const details = Object.fromEntries(fields.map((field, i) => [field, (bits & (1 << i)) !== 0])) as unknown as Verdict['details'];
      const verdict = { ...sandboxVerdict('plain@example.com'), details };
      expect(storedDetails(verdict)).toBe(JSON.stringify(details));
      expect(readStoredDetails(storedDetails(verdict))).toEqual({ details, evidence: null, normalized_email: undefined });
    }
  });

  it('keep whatever is not plain: evidence, another normalized form, a rule, a details field of its own', () => {
    const base = sandboxVerdict('someone@example.com');
    const evidence = { mx_host: 'mx.example.com', smtp_code: 550, smtp_enhanced_code: '5.1.1', smtp_message: 'no', smtp_failure: null, attempts: 1 };
    const withEvidence = { ...base, evidence: evidence as unknown as Verdict['evidence'] };
    expect(stored(withEvidence)).toEqual({ ...base.details, evidence });
    expect(readStoredDetails(storedDetails(withEvidence))).toEqual({ details: base.details, evidence, normalized_email: undefined });
    const respelled = { ...base, normalized_email: 'someone@exämple.com' };
    expect(stored(respelled)).toEqual({ ...base.details, normalized_email: 'someone@exämple.com' });
    expect(readStoredDetails(storedDetails(respelled)).normalized_email).toBe('someone@exämple.com');
    expect(stored({ ...base, normalized_email: null })).toEqual({ ...base.details, normalized_email: null });
    expect(stored({ ...base, rule_id: 'rul_1' })).toEqual({ ...base.details, rule_id: 'rul_1' });
    expect(readStoredDetails(storedDetails({ ...base, rule_id: 'rul_1' })).details).toEqual(base.details);
    const extra = { ...base.details, legacy: 1 } as Verdict['details'];
    expect(stored({ ...base, details: extra })).toEqual(extra);
    const notBoolean = { ...base.details, smtp_valid: null } as unknown as Verdict['details'];
    expect(stored({ ...base, details: notBoolean })).toEqual(notBoolean);
  });

  it('read from a row stored before: sub_reason and mailbox_provider left out, every field of the time kept', () => {
    const before = {
      ...sandboxVerdict('old@example.com').details,
      evidence: null,
      normalized_email: 'old@example.com',
      sub_reason: 'x',
      mailbox_provider: 'y',
    };
    expect(readStoredDetails(JSON.stringify(before))).toEqual({
      details: sandboxVerdict('old@example.com').details,
      evidence: null,
      normalized_email: 'old@example.com',
    });
  });
});
