import { describe, expect, it } from 'vitest';
import { sandboxVerdict } from '../verifier/sandbox';
import { VERIFICATION_COLUMNS, verificationRecord, verificationRow, verificationValues } from './rows';

const recorded = { userId: 'usr_1', jobId: 'job_1', idx: 7, sandbox: true, source: 'bulk', cached: false, at: 1_764_000_000_000 } as const;

describe('a verdict as a stored row', () => {
  it('lists its values in VERIFICATION_COLUMNS order, the order the batch inserts name the columns in', () => {
    const verdict = sandboxVerdict('valid@example.com');
    const record = verificationRecord(verdict, recorded);
    expect(Object.keys(record)).toEqual([...VERIFICATION_COLUMNS]);
    expect(verificationRow(verdict, recorded)).toEqual(verificationValues(record));
    expect(verificationRow(verdict, recorded)[VERIFICATION_COLUMNS.indexOf('email')]).toBe('valid@example.com');
  });
});
