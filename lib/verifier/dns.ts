import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';
import { reverseLabels, unmapped } from './net';

export interface MailHost {
  exchange: string;
  priority: number;
}

/** What DNS says about where mail for a domain goes. */
export type MailRoute =
  | { kind: 'mx'; hosts: MailHost[] } // sorted by preference, lowest first
  | { kind: 'implicit'; hosts: MailHost[] } // no MX, but A/AAAA: RFC 5321 5.1 implicit MX
  | { kind: 'null_mx' } // RFC 7505: the domain says it takes no mail
  | { kind: 'no_mail' } // the domain exists but has neither MX nor address records
  | { kind: 'nxdomain' }
  | { kind: 'unknown'; error: string }; // timeout, SERVFAIL, refused: never "invalid"

export type HostAddresses = { ok: true; ips: string[] } | { ok: false; error: string };

/** Whether the resolver's denials can be believed: lying = it answered NXDOMAIN for a canary. */
export type ResolverHealth = { lying: false } | { lying: true; detail: string };

export interface DnsResolver {
  mailRoute(domain: string): Promise<MailRoute>;
  addresses(host: string): Promise<HostAddresses>;
  /** asked before a verdict rests on NXDOMAIN; absent: the resolver is trusted */
  health?(): Promise<ResolverHealth>;
}

export interface DnsOptions {
  /** "host:port" or "host" entries; empty means the system resolvers */
  servers?: string[];
  timeoutMs?: number;
  tries?: number;
  now?: () => number;
  /** MX answers carry no TTL in node's API, so they are kept this long */
  mxTtlMs?: number;
  /** NXDOMAIN / NODATA answers are kept this long */
  negativeTtlMs?: number;
  /** bounds for A/AAAA TTLs: a 0-second TTL would defeat the cache in a bulk job */
  minTtlMs?: number;
  maxTtlMs?: number;
  /**
   * Names that must exist (EV_DNS_CANARIES). A resolver that denies one (NXDOMAIN) denies real
   * domains too: captive portals, a hijacking ISP resolver, a split-horizon resolver with no
   * upstream. Any other answer, even a failure, is not a denial.
   */
  canaries?: string[];
  /** how long a health answer is kept (default 60 s) */
  healthTtlMs?: number;
}

const NOT_FOUND = new Set(['ENOTFOUND', 'ENODATA']);

/**
 * How much of a DNS answer is kept, as MTAs do (Postfix's smtp_mx_address_limit is 5): a hostile
 * zone can answer with hundreds of records, and every address of a job would carry them. Only the
 * most preferred MX hosts are kept, and a name longer than DNS allows (RFC 1035: 253) is dropped.
 */
export const DNS_LIMITS = { mxHosts: 10, addressesPerHost: 5, nameLength: 253 } as const;

export function createDnsResolver(options: DnsOptions = {}): DnsResolver {
  const resolver = new Resolver({ timeout: options.timeoutMs ?? 3000, tries: options.tries ?? 2 });
  if (options.servers?.length) resolver.setServers(options.servers);
  const now = options.now ?? Date.now;
  const mxTtl = options.mxTtlMs ?? 300_000;
  const negativeTtl = options.negativeTtlMs ?? 60_000;
  const [minTtl, maxTtl] = [options.minTtlMs ?? 30_000, options.maxTtlMs ?? 3_600_000];
  const cache = new Map<string, { expires: number; value: unknown }>();

  const inFlight = new Map<string, Promise<unknown>>();

  // Failures that may be temporary are never cached: the next address retries the lookup.
  // Concurrent lookups of one name share a query: a bulk job starts thousands of addresses of
  // one domain at once, and a burst of identical UDP queries gets dropped and retried.
  async function cached<T>(key: string, lookup: () => Promise<{ value: T; ttlMs: number | null }>): Promise<T> {
    const hit = cache.get(key);
    if (hit && hit.expires > now()) return hit.value as T;
    const pending = inFlight.get(key);
    if (pending) return pending as Promise<T>;
    const query = lookup()
      .then(({ value, ttlMs }) => {
        if (ttlMs !== null) cache.set(key, { expires: now() + ttlMs, value });
        return value;
      })
      .finally(() => inFlight.delete(key));
    inFlight.set(key, query);
    return query;
  }

  async function addressRecords(host: string, family: 4 | 6) {
    try {
      const records = family === 4 ? await resolver.resolve4(host, { ttl: true }) : await resolver.resolve6(host, { ttl: true });
      const ttl = Math.min(...records.map((r) => r.ttl)) * 1000;
      return { ips: records.map((r) => r.address), ttlMs: clamp(ttl, minTtl, maxTtl), code: null };
    } catch (error) {
      return { ips: [] as string[], ttlMs: negativeTtl, code: errorCode(error) };
    }
  }

  async function addresses(host: string): Promise<HostAddresses> {
    return cached<HostAddresses>(`addr:${host}`, async () => {
      const [v4, v6] = await Promise.all([addressRecords(host, 4), addressRecords(host, 6)]);
      const ips = [...v4.ips.slice(0, DNS_LIMITS.addressesPerHost), ...v6.ips.slice(0, DNS_LIMITS.addressesPerHost)];
      if (ips.length) return { value: { ok: true, ips }, ttlMs: Math.min(v4.ttlMs, v6.ttlMs) };
      const hardMiss = [v4.code, v6.code].every((c) => c !== null && NOT_FOUND.has(c));
      const error = v4.code === 'ENOTFOUND' ? 'ENOTFOUND' : (v4.code ?? v6.code ?? 'ENODATA');
      return { value: { ok: false, error }, ttlMs: hardMiss ? negativeTtl : null };
    });
  }

  async function mailRoute(domain: string): Promise<MailRoute> {
    return cached<MailRoute>(`mx:${domain}`, async () => {
      let records: MailHost[];
      try {
        records = await resolver.resolveMx(domain);
      } catch (error) {
        const code = errorCode(error);
        if (code === 'ENOTFOUND') return { value: { kind: 'nxdomain' }, ttlMs: negativeTtl };
        if (code !== 'ENODATA') return { value: { kind: 'unknown', error: code }, ttlMs: null };
        records = [];
      }
      // RFC 7505: a lone MX with an empty ("." on the wire) exchange means "no mail here"
      const real = records.filter((r) => r.exchange !== '' && r.exchange !== '.' && r.exchange.length <= DNS_LIMITS.nameLength);
      if (records.length > 0 && real.length === 0) return { value: { kind: 'null_mx' }, ttlMs: mxTtl };
      if (real.length > 0) {
        const hosts = real
          .map((r) => ({ exchange: r.exchange.replace(/\.$/, '').toLowerCase(), priority: r.priority }))
          .sort((a, b) => a.priority - b.priority)
          .slice(0, DNS_LIMITS.mxHosts);
        return { value: { kind: 'mx', hosts }, ttlMs: mxTtl };
      }
      const direct = await addresses(domain);
      if (direct.ok) return { value: { kind: 'implicit', hosts: [{ exchange: domain, priority: 0 }] }, ttlMs: mxTtl };
      if (direct.error === 'ENOTFOUND') return { value: { kind: 'nxdomain' }, ttlMs: negativeTtl };
      if (direct.error === 'ENODATA') return { value: { kind: 'no_mail' }, ttlMs: negativeTtl };
      return { value: { kind: 'unknown', error: direct.error }, ttlMs: null };
    });
  }

  let health: { expires: number; value: Promise<ResolverHealth> } | null = null;
  function checkHealth(): Promise<ResolverHealth> {
    if (health && health.expires > now()) return health.value;
    const value = Promise.all(
      (options.canaries ?? []).map(async (name) => {
        try {
          await resolver.resolve4(name);
          return null;
        } catch (error) {
          // NODATA (ENODATA) says the name exists; only a denial of its existence is a lie
          return errorCode(error) === 'ENOTFOUND' ? name : null;
        }
      }),
    ).then((denied): ResolverHealth => {
      const names = denied.filter((n): n is string => n !== null);
      return names.length === 0 ? { lying: false } : { lying: true, detail: `the resolver denies ${names.join(', ')} (NXDOMAIN), which must exist` };
    });
    health = { expires: now() + (options.healthTtlMs ?? 60_000), value };
    return value;
  }

  return { mailRoute, addresses, health: checkHealth };
}

// The egress check's DNS (lib/egress/check.ts): PTR and plain A lookups beside the resolver above.

/** A DNS answer: `values` empty for NXDOMAIN / NODATA; `error` for anything else (timeout, SERVFAIL, refused). */
export type Lookup = { ok: true; values: string[] } | { ok: false; error: string };

export interface EgressDns {
  mailRoute: DnsResolver['mailRoute'];
  addresses: DnsResolver['addresses'];
  /** PTR names of an IP */
  reverse(ip: string): Promise<Lookup>;
  /** A records of a name (DNSBL queries) */
  ipv4(name: string): Promise<Lookup>;
  /** whether the resolver denies a canary; absent: not checked */
  health?: DnsResolver['health'];
}

export interface EgressDnsOptions {
  /** "host:port" entries (EV_DNS_SERVERS); empty: the system resolvers */
  servers?: string[];
  timeoutMs?: number;
  tries?: number;
  /** EV_DNS_CANARIES: names that must exist, for the resolver check */
  canaries?: string[];
}

/** The verifier's resolver (MX and addresses) plus PTR and plain A lookups, on the same servers. */
export function createEgressDns(options: EgressDnsOptions = {}): EgressDns {
  const timeout = options.timeoutMs ?? 3000;
  const tries = options.tries ?? 2;
  const base = createDnsResolver({
    servers: options.servers,
    timeoutMs: timeout,
    tries,
    minTtlMs: 0,
    mxTtlMs: 0,
    negativeTtlMs: 0,
    canaries: options.canaries,
    healthTtlMs: 0,
  });
  const resolver = new Resolver({ timeout, tries });
  if (options.servers?.length) resolver.setServers(options.servers);
  const lookup = async (query: () => Promise<string[]>): Promise<Lookup> => {
    try {
      return { ok: true, values: await query() };
    } catch (error) {
      const code = errorCode(error);
      return code === 'ENOTFOUND' || code === 'ENODATA' ? { ok: true, values: [] } : { ok: false, error: code };
    }
  };
  return {
    mailRoute: base.mailRoute,
    addresses: base.addresses,
    // resolvePtr, not reverse(): c-ares's reverse() answers from /etc/hosts first
    reverse: (ip) => {
      const labels = reverseLabels(ip);
      if (!labels) return Promise.resolve({ ok: false, error: 'not an IP address' });
      return lookup(() => resolver.resolvePtr(`${labels}.${isIP(unmapped(ip)) === 4 ? 'in-addr' : 'ip6'}.arpa`));
    },
    ipv4: (name) => lookup(() => resolver.resolve4(name)),
    ...(options.canaries?.length ? { health: base.health } : {}),
  };
}

/** EV_DNS_SERVERS="127.0.0.1:5353,[::1]:53" → ["127.0.0.1:5353", "[::1]:53"] */
export function parseDnsServers(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function errorCode(error: unknown): string {
  return (error as { code?: string })?.code ?? 'EUNKNOWN';
}

function clamp(value: number, min: number, max: number): number {
  return Math.max(min, Math.min(max, value));
}
