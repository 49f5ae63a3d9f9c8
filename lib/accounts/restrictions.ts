import { BlockList, isIP } from 'node:net';

// A key's restrictions: the client addresses and (publishable keys) the page origins it may be used from.

/**
 * An address or CIDR block (`203.0.113.7`, `203.0.113.0/24`, `2001:db8::/32`) in a canonical form,
 * or null when it is neither. Node's own BlockList does the matching (no parser of ours).
 */
export function normalizeIpRule(rule: string): string | null {
  const [address = '', prefix, ...rest] = rule.trim().split('/');
  const family = isIP(address);
  if (!family || rest.length) return null;
  if (prefix === undefined) return address.toLowerCase();
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > (family === 4 ? 32 : 128)) return null;
  return `${address.toLowerCase()}/${Number(prefix)}`;
}

/**
 * A client address as proxies write it, bare: without a port (`203.0.113.9:51234`,
 * `[2001:db8::1]:443`) and an IPv4 client seen on an IPv6 socket (`::ffff:203.0.113.9`) as IPv4.
 */
export function bareAddress(client: string): string {
  const trimmed = client.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(trimmed);
  const address = bracketed ? bracketed[1]! : /^\d+\.\d+\.\d+\.\d+:\d+$/.test(trimmed) ? trimmed.slice(0, trimmed.lastIndexOf(':')) : trimmed;
  return address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '').toLowerCase();
}

// Building a BlockList costs tens of microseconds: one per distinct rule set, kept.
const blockLists = new Map<string, BlockList>();

function blockListOf(rules: readonly string[]): BlockList {
  const id = rules.join(',');
  let list = blockLists.get(id);
  if (list) return list;
  list = new BlockList();
  for (const rule of rules) {
    const [network, prefix] = rule.split('/');
    const type = isIP(network!) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(network!, type);
    else list.addSubnet(network!, Number(prefix), type);
  }
  if (blockLists.size >= 1000) blockLists.clear();
  blockLists.set(id, list);
  return list;
}

/** Whether `client` (an address; `shared` when unknown: lib/auth/origin.ts) is one the rules allow. */
export function ipAllowed(rules: readonly string[], client: string): boolean {
  const address = bareAddress(client);
  const family = isIP(address);
  if (!family) return false;
  return blockListOf(rules).check(address, family === 6 ? 'ipv6' : 'ipv4');
}

/** `https://shop.example` (scheme, host, port; no path) in the form a browser sends as Origin, or null. */
export function normalizeOrigin(origin: string): string | null {
  try {
    const url = new URL(origin.trim());
    if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password) return null;
    if (url.pathname !== '/' || url.search || url.hash) return null;
    return url.origin;
  } catch {
    return null;
  }
}

function parsedRule(rule: string): { address: string; prefix: number; family: 4 | 6 } | null {
  const [address = '', prefix] = rule.split('/');
  const family = isIP(address);
  if (family !== 4 && family !== 6) return null;
  return { address, family, prefix: prefix === undefined ? (family === 4 ? 32 : 128) : Number(prefix) };
}

/**
 * Whether every rule of `inner` lies inside some rule of `outer` (both normalised by normalizeIpRule):
 * a block is within another of its family when its prefix is at least as long and its address falls
 * in the other (every address of a block shares its first `prefix` bits). A key may make or edit
 * only keys at least as narrow as itself (lib/accounts/keys.ts, docs/security.md).
 */
export function ipRulesWithin(inner: readonly string[], outer: readonly string[]): boolean {
  return inner.every((rule) => {
    const a = parsedRule(rule);
    return (
      a !== null &&
      outer.some((container) => {
        const b = parsedRule(container);
        return b !== null && a.family === b.family && a.prefix >= b.prefix && blockListOf([container]).check(a.address, a.family === 6 ? 'ipv6' : 'ipv4');
      })
    );
  });
}

/**
 * Whom a publishable key's per-visitor limit counts: an IPv4 address as it is, an IPv6 address by
 * its /64 (one host is commonly given a whole /64, so per address it would have unlimited
 * visitors), anything else (`shared`) as itself. docs/integrations.md, "Publishable keys".
 */
export function visitorOf(client: string): string {
  const address = bareAddress(client);
  if (isIP(address) !== 6) return address;
  const [head = '', tail] = address.replace(/%.*$/, '').split('::') as [string, string | undefined];
  const groups = (part: string | undefined) =>
    (part ? part.split(':') : []).flatMap((group) => {
      if (!group.includes('.')) return [group];
      const [a, b, c, d] = group.split('.').map(Number) as [number, number, number, number];
      return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
    });
  const left = groups(head);
  const right = groups(tail);
  const all = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return `${all
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}
