import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bounds, oracle } from '@/test/key-bounds';
import { exceeds } from './key-bounds';
import { ipRulesWithin } from './restrictions';
import { SCOPES } from './scopes';

describe('no key exceeds its maker', () => {
  it('a key is within its maker exactly when its scopes, addresses and expiry are', () => {
    fc.assert(
      fc.property(bounds, bounds, (maker, wanted) => {
        expect(exceeds(maker, wanted) === null).toBe(oracle(maker, wanted));
      }),
      { numRuns: 5_000 },
    );
  });

  it('every combination of scope sets: within exactly when a subset', () => {
    const subsets = [null, ...Array.from({ length: 2 ** SCOPES.length - 1 }, (_, m) => SCOPES.filter((_, i) => ((m + 1) >> i) & 1))];
    for (const maker of subsets) {
      for (const wanted of subsets) {
        const within = exceeds({ scopes: maker, allowedIps: null, expiresAt: null }, { scopes: wanted, allowedIps: null, expiresAt: null }) === null;
        // every scope (null) is each scope listed
        expect(within).toBe(maker === null || (wanted ?? SCOPES).every((s) => maker.includes(s)));
      }
    }
  });

  it('a key is always within itself, and the owner (no bounds) holds every key', () => {
    fc.assert(
      fc.property(bounds, (key) => {
        expect(exceeds(key, key)).toBeNull();
        expect(exceeds({ scopes: null, allowedIps: null, expiresAt: null }, key)).toBeNull();
      }),
    );
  });

  it('reads blocks by their bits: a host or a longer prefix inside, a neighbour or a shorter prefix outside', () => {
    expect(ipRulesWithin(['10.1.2.3', '10.1.0.0/24'], ['10.1.0.0/16'])).toBe(true);
    expect(ipRulesWithin(['10.0.0.0/8'], ['10.1.0.0/16'])).toBe(false);
    expect(ipRulesWithin(['10.2.0.0/16'], ['10.1.0.0/16'])).toBe(false);
    expect(ipRulesWithin(['2001:db8:1::/48'], ['2001:db8::/32'])).toBe(true);
    expect(ipRulesWithin(['2001:db8::/32'], ['10.0.0.0/8'])).toBe(false);
  });
});
