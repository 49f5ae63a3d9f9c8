import { normalizeIpRule } from '../accounts/restrictions';

/**
 * How the client address is found (EV_TRUST_PROXY; docs/security.md, "The client address"):
 * - `none`: no proxy of ours; nothing in the request names the client (one shared bucket);
 * - `hops`: that many proxies of ours, each appending its peer to X-Forwarded-For: the client is the
 *   `hops`-th entry from the right (what the client itself wrote is further left);
 * - `networks`: our proxies' addresses: the client is the rightmost X-Forwarded-For entry outside them;
 * - `header`: our proxy writes the client's address into this one header (X-Real-IP,
 *   CF-Connecting-IP, ...), replacing whatever the client sent; X-Forwarded-For is never read.
 */
export type ProxyTrust = { kind: 'none' } | { kind: 'hops'; hops: number } | { kind: 'networks'; networks: string[] } | { kind: 'header'; header: string };

/** `false`/`0` (none), `true` (one hop), a number of hops, `header:<Name>`, or a comma-separated list of addresses and CIDR blocks; null when it is none of them. */
export function parseTrustProxy(value: string): ProxyTrust | null {
  const text = value.trim();
  if (text === '' || text === 'false' || text === '0') return { kind: 'none' };
  if (text === 'true') return { kind: 'hops', hops: 1 };
  if (/^\d{1,2}$/.test(text)) return { kind: 'hops', hops: Number(text) };
  const header = /^header:\s*([A-Za-z0-9-]{1,64})$/i.exec(text);
  if (header) return header[1]!.toLowerCase() === 'x-forwarded-for' ? null : { kind: 'header', header: header[1]!.toLowerCase() };
  const networks = text.split(',').map((rule) => normalizeIpRule(rule));
  return networks.every((rule): rule is string => rule !== null) ? { kind: 'networks', networks } : null;
}
