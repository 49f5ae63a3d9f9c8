import { BlockList, isIP } from 'node:net';

// Ranges an outside caller must never make us connect to: loopback, RFC 1918, CGNAT,
// link-local (which holds the cloud metadata service 169.254.169.254), documentation,
// benchmarking, multicast and reserved space; in IPv6 also unique-local (fc00::/7, which holds
// AWS's fd00:ec2::254 metadata), link-local and site-local, and every transition range that
// carries an IPv4 address inside it (IPv4-compatible ::/96, IPv4-mapped ::ffff:0:0/96,
// IPv4-translated ::ffff:0:0:0/96, NAT64 64:ff9b::/96 and 64:ff9b:1::/48, 6to4 2002::/16,
// Teredo 2001::/32): a gateway on the way could turn any of them into a private IPv4 address.
const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
  ['2001:db8::', 32],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2002::', 16],
  ['2001::', 32],
] as const)
  blocked.addSubnet(net, prefix, 'ipv6');

/** True for any address that is not a public unicast address (and for anything not an IP). */
export function isPrivateAddress(ip: string): boolean {
  const family = isIP(ip);
  if (family === 4) return blocked.check(ip, 'ipv4');
  if (family !== 6) return true;
  // any IPv6 text with a dotted IPv4 tail (::ffff:10.0.0.1, ::10.0.0.1, 64:ff9b::10.0.0.1) embeds
  // an IPv4 address: the ranges that allow it are all refused
  if (/\d+\.\d+\.\d+\.\d+$/.test(ip)) return true;
  // ::/96, ::ffff:0:0/96 and ::ffff:0:0:0/96 are checked here: BlockList matches IPv4 addresses
  // against IPv4-mapped subnets, so listing them there would refuse every IPv4 address
  const [a, b, c, d, e, f] = expandIPv6(ip);
  if (a === 0 && b === 0 && c === 0 && d === 0) {
    if (e === 0 && (f === 0 || f === 0xffff)) return true; // ::/96, ::ffff:0:0/96
    if (e === 0xffff && f === 0) return true; // ::ffff:0:0:0/96
  }
  return blocked.check(ip, 'ipv6');
}

/** "2001:db8::1" → its eight 16-bit groups; a dotted IPv4 tail (::ffff:192.0.2.1) fills the last two. */
function expandIPv6(ip: string): number[] {
  let text = ip.toLowerCase();
  const v4 = text.match(/(\d+\.\d+\.\d+\.\d+)$/);
  if (v4) {
    const [a, b, c, d] = v4[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, -v4[1]!.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail = ''] = text.split('::');
  const parse = (part: string) => (part ? part.split(':').map((g) => parseInt(g, 16)) : []);
  const left = parse(head!);
  const right = text.includes('::') ? parse(tail) : [];
  return [...left, ...Array(8 - left.length - right.length).fill(0), ...right];
}

/** An IPv4-mapped IPv6 address (::ffff:192.0.2.1) as the IPv4 address it carries; others unchanged. */
export function unmapped(ip: string): string {
  return ip.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, '$1');
}

/** The same address, whatever its spelling (IPv4-mapped, zeros compressed or not). */
export function sameIp(a: string, b: string): boolean {
  const [x, y] = [unmapped(a), unmapped(b)];
  if (isIP(x) === 6 && isIP(y) === 6) return expandIPv6(x).join(':') === expandIPv6(y).join(':');
  return x === y;
}

/** 192.0.2.1 → "1.2.0.192"; IPv6 in nibble format (RFC 5782): 2001:db8::1 → "1.0.0.0…8.b.d.0.1.0.0.2" */
export function reverseLabels(ip: string): string | null {
  const address = unmapped(ip);
  const family = isIP(address);
  if (family === 4) return address.split('.').reverse().join('.');
  if (family !== 6) return null;
  return expandIPv6(address)
    .map((g) => g.toString(16).padStart(4, '0'))
    .join('')
    .split('')
    .reverse()
    .join('.');
}
