import { describe, expect, it } from 'vitest';
import { sandboxVerdict } from '../verifier/sandbox';
import type { Verdict } from '../verifier/types';
import { VERIFICATION_COLUMNS, verificationRecord, verificationRow, verificationValues } from './rows';

const recorded = { userId: 'usr_1', jobId: 'job_1', idx: 7, sandbox: true, source: 'bulk', cached: false, at: 1_764_000_000_000 } as const;
const detailsOf = (verdict: Verdict) => JSON.parse(verificationRecord(verdict, recorded).details);

describe('a verdict as a stored row', () => {
  it('lists its values in VERIFICATION_COLUMNS order, the order the batch inserts name the columns in', () => {
    const verdict = sandboxVerdict('valid@example.com');
    const record = verificationRecord(verdict, recorded);
    expect(Object.keys(record)).toEqual([...VERIFICATION_COLUMNS]);
    expect(verificationRow(verdict, recorded)).toEqual(verificationValues(record));
    expect(verificationRow(verdict, recorded)[VERIFICATION_COLUMNS.indexOf('email')]).toBe('valid@example.com');
  });

  it('stores the same details JSON for each of the sixteen plain details as for any other verdict', () => {
    const fields = ['syntax_valid', 'domain_exists', 'mx_record', 'smtp_valid'] as const;
    for (let bits = 0; bits < 16; bits++) {
      const details = Object.fromEntries(fields.map((field, i) => [field, (bits & (1 << i)) !== 0])) as unknown as Verdict['details'];
      const verdict = { ...sandboxVerdict('plain@example.com'), details };
      expect(verificationRecord(verdict, recorded).details).toBe(JSON.stringify(details));
    }
  });

  it('keeps whatever is not plain: evidence, another normalized form, a rule, a details field of its own', () => {
    const base = sandboxVerdict('someone@example.com');
    const evidence = { mx_host: 'mx.example.com', smtp_code: 550, smtp_enhanced_code: '5.1.1', smtp_message: 'no', smtp_failure: null, attempts: 1 };
    expect(detailsOf({ ...base, evidence: evidence as unknown as Verdict['evidence'] })).toEqual({ ...base.details, evidence });
    expect(detailsOf({ ...base, normalized_email: 'someone@exämple.com' })).toEqual({ ...base.details, normalized_email: 'someone@exämple.com' });
    expect(detailsOf({ ...base, rule_id: 'rul_1' })).toEqual({ ...base.details, rule_id: 'rul_1' });
    const extra = { ...base.details, legacy: 1 } as Verdict['details'];
    expect(detailsOf({ ...base, details: extra })).toEqual(extra);
    const notBoolean = { ...base.details, smtp_valid: null } as unknown as Verdict['details'];
    expect(detailsOf({ ...base, details: notBoolean })).toEqual(notBoolean);
  });
});
