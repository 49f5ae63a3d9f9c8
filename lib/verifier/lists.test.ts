import { describe, expect, it } from 'vitest';
import { isDisposableDomain, isFreeProvider, isRoleAccount } from './lists';

describe('lists', () => {
  it('knows disposable domains, including their subdomains', () => {
    expect(isDisposableDomain('mailinator.com')).toBe(true);
    expect(isDisposableDomain('Sub.Mailinator.com')).toBe(true);
    expect(isDisposableDomain('gmail.com')).toBe(false);
  });

  it('knows free providers', () => {
    expect(isFreeProvider('gmail.com')).toBe(true);
    expect(isFreeProvider('yahoo.com')).toBe(true);
    expect(isFreeProvider('example.test')).toBe(false);
  });

  it('knows role accounts', () => {
    expect(isRoleAccount('info')).toBe(true);
    expect(isRoleAccount('Postmaster')).toBe(true);
    expect(isRoleAccount('sales+eu')).toBe(true);
    expect(isRoleAccount('alice')).toBe(false);
  });
});
