import { describe, expect, it } from 'vitest';
import { suggestCorrection } from './suggest';

describe('suggestCorrection', () => {
  it('corrects typos of well-known providers', () => {
    expect(suggestCorrection('jorge', 'gmaik.co')).toBe('jorge@gmail.com');
    expect(suggestCorrection('bob', 'gmail.con')).toBe('bob@gmail.com');
    expect(suggestCorrection('a', 'hotmial.com')).toBe('a@hotmail.com');
  });

  it('leaves correct and unfamiliar domains alone', () => {
    expect(suggestCorrection('a', 'gmail.com')).toBeNull();
    expect(suggestCorrection('alice', 'example.test')).toBeNull();
    expect(suggestCorrection('john', 'company.com')).toBeNull();
  });
});
