import { describe, expect, it } from 'vitest';
import { isPrivateAddress } from './net';

describe('isPrivateAddress', () => {
  it('refuses loopback, private, CGNAT, link-local, metadata and unique-local addresses', () => {
    for (const ip of [
      '127.0.0.1',
      '10.1.2.3',
      '172.20.0.1',
      '192.168.1.1',
      '100.64.0.1',
      '169.254.169.254',
      '0.0.0.0',
      '::1',
      '::',
      'fd00:ec2::254',
      'fe80::1',
      '::ffff:127.0.0.1',
      '::ffff:a00:1',
      'not-an-ip',
      '224.0.0.1',
    ]) {
      expect(isPrivateAddress(ip), ip).toBe(true);
    }
  });

  it('refuses the IPv6 transition ranges that carry an IPv4 address', () => {
    for (const ip of [
      '::a00:1',
      '::10.0.0.1',
      '::ffff:8.8.8.8',
      '::ffff:0:a00:1',
      '64:ff9b::a00:1',
      '64:ff9b::10.0.0.1',
      '64:ff9b:1::a00:1',
      '2002:a00:1::1',
      '2002:7f00:1::',
      '2001:0:4136:e378:8000:63bf:3fff:fdd2',
      'fec0::1',
    ]) {
      expect(isPrivateAddress(ip), ip).toBe(true);
    }
  });

  it('allows public unicast addresses', () => {
    for (const ip of ['8.8.8.8', '142.250.27.26', '2a00:1450:400c:c0b::1a', '172.32.0.1']) {
      expect(isPrivateAddress(ip), ip).toBe(false);
    }
  });
});
