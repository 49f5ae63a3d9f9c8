import { describe, expect, it } from 'vitest';
import { bareAddress, ipAllowed, normalizeIpRule, normalizeOrigin } from './restrictions';

describe('key restrictions', () => {
  it('reads addresses and CIDR blocks of both families, canonically, and refuses the rest', () => {
    expect(normalizeIpRule(' 203.0.113.7 ')).toBe('203.0.113.7');
    expect(normalizeIpRule('203.0.113.0/24')).toBe('203.0.113.0/24');
    expect(normalizeIpRule('2001:DB8::/032')).toBe('2001:db8::/32');
    for (const bad of ['203.0.113.0/33', '2001:db8::/129', '203.0.113', 'example.com', '10.0.0.0/8/8', '10.0.0.0/', '10.0.0.0/x'])
      expect(normalizeIpRule(bad), bad).toBeNull();
  });

  it('matches a client, bare of ports and IPv4-mapped prefixes, against the rules', () => {
    const rules = ['203.0.113.0/24', '2001:db8::/32', '198.51.100.7'];
    for (const client of ['203.0.113.1', '::ffff:203.0.113.1', '203.0.113.1:4444', '[2001:db8:1::2]:443', '2001:DB8::9', '198.51.100.7']) {
      expect(ipAllowed(rules, client), client).toBe(true);
    }
    for (const client of ['203.0.114.1', '198.51.100.8', '2001:db9::1', 'shared', '']) expect(ipAllowed(rules, client), client).toBe(false);
    expect(bareAddress('[::1]:80')).toBe('::1');
  });

  it('takes origins as a browser sends them', () => {
    expect(normalizeOrigin('https://Shop.Example/')).toBe('https://shop.example');
    expect(normalizeOrigin('http://localhost:8080')).toBe('http://localhost:8080');
    expect(normalizeOrigin('https://shop.example:443')).toBe('https://shop.example');
    for (const bad of ['https://shop.example/signup', 'ftp://shop.example', 'https://user@shop.example', 'shop.example', 'https://shop.example?x=1']) {
      expect(normalizeOrigin(bad), bad).toBeNull();
    }
  });
});
