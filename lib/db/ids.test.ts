import { describe, expect, it } from 'vitest';
import { newId } from './ids';

describe('newId', () => {
  it('gives distinct URL-safe ids of the asked length across refills of its random pool', () => {
    // 12 bytes each: 1,000 ids draw three 4 KB pools; one of 5,000 bytes bypasses the pool
    const ids = Array.from({ length: 1000 }, () => newId('req'));
    expect(new Set(ids).size).toBe(1000);
    for (const id of ids) expect(id).toMatch(/^req_[A-Za-z0-9_-]{16}$/);
    expect(newId('claim', 9)).toMatch(/^claim_[A-Za-z0-9_-]{12}$/);
    expect(newId('big', 5000)).toHaveLength(4 + Math.ceil((5000 * 4) / 3));
  });
});
