import { POPULAR_DOMAINS, run } from '@zootools/email-spell-checker';
import { describe, expect, it } from 'vitest';
import { commonProviders } from './lists';
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

  it('answers from the domain it has seen as the checker answers each address', () => {
    const known = new Set([...POPULAR_DOMAINS, ...commonProviders]);
    const domains = ['gmaik.co', 'yaho.com', 'outlok.com', 'example.test', 'gmail.con', 'hotmial.com', 'company.com'];
    const locals = ['jorge', 'a.b+tag', 'x', '"quoted@local"', 'Mixed.Case'];
    for (let round = 0; round < 2; round++) {
      for (const domain of domains) {
        for (const local of locals) {
          const checked = known.has(domain) ? undefined : run({ email: `${local}@${domain}` });
          const expected = checked && checked.domain !== domain && known.has(checked.domain) ? `${local}@${checked.domain}` : null;
          expect(suggestCorrection(local, domain), `${local}@${domain}`).toBe(expected);
        }
      }
    }
  });
});
