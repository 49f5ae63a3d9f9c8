import fc from 'fast-check';
import { SCOPES } from '@/lib/accounts/scopes';
import type { KeyBounds } from '@/lib/accounts/keys';

// "No key exceeds its maker" (docs/security.md, "Keys that make keys"): an oracle that reads address
// blocks as ranges of integers rather than through net.BlockList and prefix lengths, and the
// arbitraries (fast-check) of the property tests (lib/accounts/key-bounds.test.ts, test/api/key-bounds.test.ts).

function range(rule: string): { family: 4 | 6; lo: bigint; hi: bigint } {
  const [address, prefix] = rule.split('/') as [string, string | undefined];
  const v6 = address.includes(':');
  const bits = v6 ? 128 : 32;
  let value = 0n;
  if (v6) {
    const [head, tail = ''] = address.split('::');
    const h = head ? head.split(':') : [];
    const t = address.includes('::') ? (tail ? tail.split(':') : []) : [];
    const groups = address.includes('::') ? [...h, ...Array(8 - h.length - t.length).fill('0'), ...t] : h;
    for (const g of groups) value = (value << 16n) + BigInt(parseInt(g, 16));
  } else {
    for (const o of address.split('.')) value = (value << 8n) + BigInt(Number(o));
  }
  const p = BigInt(prefix === undefined ? bits : Number(prefix));
  const size = 1n << (BigInt(bits) - p);
  const lo = (value / size) * size;
  return { family: v6 ? 6 : 4, lo, hi: lo + size - 1n };
}

const inside = (inner: string[], outer: string[]) =>
  inner.every((r) => {
    const a = range(r);
    return outer.some((o) => {
      const b = range(o);
      return a.family === b.family && a.lo >= b.lo && a.hi <= b.hi;
    });
  });

export function oracle(maker: KeyBounds, wanted: KeyBounds): boolean {
  // every scope (null) is each scope listed (the API shows it so)
  const scopes = maker.scopes === null || (wanted.scopes ?? SCOPES).every((s) => maker.scopes!.includes(s));
  const ips = maker.allowedIps === null || (wanted.allowedIps !== null && inside([...wanted.allowedIps], [...maker.allowedIps]));
  const expiry = maker.expiresAt === null || (wanted.expiresAt !== null && wanted.expiresAt <= maker.expiresAt);
  return scopes && ips && expiry;
}

export const v4 = fc
  .tuple(fc.constantFrom(10, 192, 203), fc.nat(3), fc.nat(3), fc.nat(3), fc.constantFrom(undefined, 8, 16, 24, 30, 32))
  .map(([a, b, c, d, p]) => `${a}.${b}.${c}.${d}${p === undefined ? '' : `/${p}`}`);
export const v6 = fc
  .tuple(fc.nat(2), fc.nat(2), fc.constantFrom(undefined, 32, 48, 64, 128))
  .map(([a, b, p]) => `2001:db8:${a}:${b}::${p === undefined ? '' : `/${p}`}`);
export const ipRules = fc.option(fc.uniqueArray(fc.oneof(v4, v6), { minLength: 1, maxLength: 3 }), { nil: null });
export const scopeSets = fc.option(fc.subarray([...SCOPES], { minLength: 1 }), { nil: null });
export const expiries = fc.option(fc.constantFrom(1_000, 2_000, 3_000), { nil: null });
export const bounds = fc.record({ scopes: scopeSets, allowedIps: ipRules, expiresAt: expiries });
