import { Resolver } from 'node:dns/promises';
import net, { isIP } from 'node:net';
import { SocksClient } from 'socks';
import { createDnsResolver, type DnsResolver } from '../verifier/dns';
import { isPrivateAddress } from '../verifier/net';
import type { SocksProxy } from '../verifier/proxy';

/**
 * Egress health: what makes SMTP probing fail in practice, checked from this machine.
 * - port25: an SMTP server answers "220" on the probe port (through EV_SMTP_PROXY when set)
 * - egress_ip: the address receivers see (EV_EGRESS_IP, else the probe connection's own address)
 * - rdns: that address has a PTR record that resolves back to it, and it is the HELO name
 * - dnsbl: that address is on none of the DNS blocklists
 * - resolver: the resolver does not deny the canary names (EV_DNS_CANARIES); one that does makes
 *   every NXDOMAIN verdict worthless (lib/verifier/dns.ts health())
 * - identity: the HELO name and MAIL FROM domain are not the `verifier.localhost` placeholder
 *   (real servers refuse both); production probing does not start with it unless allowed
 * Pure TypeScript: DNS, the TCP connection and the clock come in as parameters.
 */

export type CheckStatus = 'pass' | 'warn' | 'fail';
export type CheckName = 'identity' | 'port25' | 'egress_ip' | 'rdns' | 'dnsbl' | 'resolver';

export interface EgressCheck {
  name: CheckName;
  status: CheckStatus;
  message: string;
  /** what to do about a warn or fail; null on pass (or when another check already says it) */
  remedy: string | null;
}

export interface EgressReport {
  /** the worst of the checks */
  status: CheckStatus;
  checked_at: string;
  egress_ip: string | null;
  helo_name: string;
  checks: EgressCheck[];
}

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

/** What an SMTP server said first, or why nothing was said. */
export type BannerResult =
  | { ok: true; code: number; text: string; localAddress: string | null }
  | { ok: false; error: string };

export type Connect = (target: { ip: string; port: number; timeoutMs: number; proxy?: SocksProxy | null }) => Promise<BannerResult>;

export interface EgressDeps {
  dns: EgressDns;
  /** defaults to a real TCP connection (through `proxy` when given) */
  connect?: Connect;
  proxy?: SocksProxy | null;
  heloName: string;
  /** EV_MAIL_FROM: with it the sender identity is checked */
  mailFrom?: string;
  /** EV_ALLOW_PLACEHOLDER_IDENTITY: probing with the placeholder identity is allowed (tests, labs) */
  allowPlaceholderIdentity?: boolean;
  smtpPort: number;
  /** "host", "domain" (its first MX is used), "host:port", "[v6]:port" or an IP */
  probeTargets: string[];
  /** EV_EGRESS_IP: the public address, when the machine cannot see it (NAT, proxy) */
  egressIp?: string;
  dnsblZones: string[];
  /** connection and banner time limit per probe target */
  timeoutMs: number;
  /** EV_ALLOW_PRIVATE_NETWORKS: a private egress address is judged instead of skipped (labs, tests) */
  allowPrivateNetworks?: boolean;
  now?: () => number;
}

const RANK: Record<CheckStatus, number> = { pass: 0, warn: 1, fail: 2 };

export function worst(statuses: CheckStatus[]): CheckStatus {
  return statuses.reduce<CheckStatus>((a, b) => (RANK[b] > RANK[a] ? b : a), 'pass');
}

export async function checkEgress(deps: EgressDeps): Promise<EgressReport> {
  const now = deps.now ?? Date.now;
  const heloName = normalizeName(deps.heloName);
  const port = await checkPort25(deps);
  const egress = egressAddress(deps, port.localAddress);
  const checks: EgressCheck[] = [port.check, egress.check];
  if (deps.mailFrom !== undefined) checks.unshift(checkIdentity(heloName, deps.mailFrom, deps.allowPlaceholderIdentity ?? false));
  if (egress.ip === null || (isPrivateAddress(egress.ip) && !deps.allowPrivateNetworks)) {
    // the egress_ip check above says what to do
    const skipped = egress.ip === null ? 'Skipped: the egress IP is unknown.' : `Skipped: ${egress.ip} is a private address, receivers see another one.`;
    checks.push({ name: 'rdns', status: 'warn', message: skipped, remedy: null }, { name: 'dnsbl', status: 'warn', message: skipped, remedy: null });
  } else {
    checks.push(...(await Promise.all([checkReverseDns(deps.dns, egress.ip, heloName), checkBlocklists(deps.dns, egress.ip, deps.dnsblZones)])));
  }
  if (deps.dns.health) checks.push(await checkResolver(deps.dns.health));
  return {
    status: worst(checks.map((c) => c.status)),
    checked_at: new Date(now()).toISOString(),
    egress_ip: egress.ip,
    helo_name: heloName,
    checks,
  };
}

// ---------------------------------------------------------------------------------------------
// sender identity

/**
 * What is wrong with this HELO name and MAIL FROM, or null. `localhost` names (the shipped
 * `verifier.localhost` placeholder among them) never resolve on the Internet: Gmail answers
 * "550 5.7.1 ... HELO/EHLO" rejections and most MTAs refuse a sender domain without DNS
 * (Postfix reject_unknown_sender_domain), so every verdict would rest on a refusal of the sender.
 */
export function placeholderIdentity(heloName: string, mailFrom: string): string | null {
  const placeholder = (name: string) => /(^|\.)localhost\.?$/i.test(name.trim());
  const senderDomain = mailFrom.slice(mailFrom.lastIndexOf('@') + 1);
  const problems = [
    placeholder(heloName) ? `the HELO name is ${heloName}` : null,
    placeholder(senderDomain) ? `the MAIL FROM domain is ${senderDomain}` : null,
  ].filter(Boolean);
  return problems.length > 0 ? `${problems.join(' and ')}, a placeholder real mail servers refuse` : null;
}

export const IDENTITY_REMEDY = 'Set EV_HELO_NAME to this machine\'s public host name (the PTR name of its egress IP) and EV_MAIL_FROM to an address of a domain you own; ' +
  'EV_ALLOW_PLACEHOLDER_IDENTITY=true allows the placeholder (tests and labs only).';

function checkIdentity(heloName: string, mailFrom: string, allowed: boolean): EgressCheck {
  const problem = placeholderIdentity(heloName, mailFrom);
  if (!problem) return { name: 'identity', status: 'pass', message: `Probes say HELO ${heloName} and MAIL FROM <${mailFrom}>.`, remedy: null };
  if (allowed) return { name: 'identity', status: 'warn', message: `Probing with a placeholder identity (EV_ALLOW_PLACEHOLDER_IDENTITY=true): ${problem}.`, remedy: IDENTITY_REMEDY };
  return { name: 'identity', status: 'fail', message: `Production probing is off: ${problem}.`, remedy: IDENTITY_REMEDY };
}

// ---------------------------------------------------------------------------------------------
// resolver

async function checkResolver(health: NonNullable<DnsResolver['health']>): Promise<EgressCheck> {
  const answer = await health();
  if (!answer.lying) return { name: 'resolver', status: 'pass', message: 'The DNS resolver answers for the canary names (EV_DNS_CANARIES).', remedy: null };
  return {
    name: 'resolver', status: 'fail',
    message: `The DNS resolver is lying: ${answer.detail}. Verdicts that rest on NXDOMAIN are answered unknown (resolver_unreliable).`,
    remedy: 'Point EV_DNS_SERVERS at a recursive resolver that answers for the public DNS (a local unbound, or your provider\'s), or correct EV_DNS_CANARIES if a name in it really does not exist.',
  };
}

// ---------------------------------------------------------------------------------------------
// port 25

interface TargetOutcome {
  target: string;
  host?: string;
  ip?: string;
  port: number;
  /** the name could not be resolved */
  dnsError?: string;
  result?: BannerResult;
}

async function checkPort25(deps: EgressDeps): Promise<{ check: EgressCheck; localAddress: string | null }> {
  const via = deps.proxy ? ` through the proxy ${deps.proxy.host}:${deps.proxy.port}` : '';
  if (deps.probeTargets.length === 0) {
    return {
      check: { name: 'port25', status: 'warn', message: 'Not checked: EV_EGRESS_PROBE_HOSTS is empty.', remedy: 'Set EV_EGRESS_PROBE_HOSTS to one or more mail servers (host or domain[:port]).' },
      localAddress: null,
    };
  }
  const outcomes = await Promise.all(deps.probeTargets.map((target) => probeTarget(deps, target)));
  const where = (o: TargetOutcome) => `${o.host ?? o.target}${o.ip && o.ip !== o.host ? ` (${o.ip})` : ''} port ${o.port}`;
  const answered = outcomes.filter((o) => o.result?.ok);
  const greeted = answered.find((o) => o.result?.ok && o.result.code === 220);
  const local = (greeted ?? answered[0])?.result;
  const localAddress = local?.ok ? local.localAddress : null;
  if (greeted?.result?.ok) {
    return {
      check: { name: 'port25', status: 'pass', message: `${where(greeted)} answered${via}: "${clip(`${greeted.result.code} ${greeted.result.text}`)}".`, remedy: null },
      localAddress,
    };
  }
  const problems = outcomes.map((o) => `${where(o)}: ${describeOutcome(o)}`).join('; ');
  if (answered.length > 0) {
    return {
      check: {
        name: 'port25', status: 'warn',
        message: `Port ${deps.smtpPort} is open${via}, but no server greeted with 220: ${problems}.`,
        remedy: 'The servers refused this address: read their message, and look at the reverse DNS and blocklist checks below.',
      },
      localAddress,
    };
  }
  if (outcomes.every((o) => o.dnsError)) {
    return {
      check: {
        name: 'port25', status: 'warn',
        message: `Could not resolve any probe target: ${problems}.`,
        remedy: 'Check DNS (EV_DNS_SERVERS) and EV_EGRESS_PROBE_HOSTS.',
      },
      localAddress: null,
    };
  }
  return {
    check: {
      name: 'port25', status: 'fail',
      message: `Outbound port ${deps.smtpPort} looks blocked${via}: ${problems}.`,
      remedy: deps.proxy
        ? 'The proxy could not reach any mail server: check that the proxy host itself can open port 25 connections.'
        : 'Most cloud providers (AWS, Google Cloud, Azure, DigitalOcean, …) block outbound port 25 by default: ask yours to lift the block, ' +
          'or send the probes through a SOCKS5 proxy on a host that has it (EV_SMTP_PROXY).',
    },
    localAddress: null,
  };
}

async function probeTarget(deps: EgressDeps, target: string): Promise<TargetOutcome> {
  const { host, port } = parseTarget(target, deps.smtpPort);
  const outcome: TargetOutcome = { target, host, port };
  let ips: string[];
  if (isIP(host)) {
    ips = [host];
  } else {
    const route = await deps.dns.mailRoute(host);
    if (route.kind !== 'mx' && route.kind !== 'implicit') return { ...outcome, dnsError: route.kind === 'unknown' ? route.error : route.kind };
    outcome.host = route.hosts[0]!.exchange;
    const addresses = await deps.dns.addresses(outcome.host);
    if (!addresses.ok) return { ...outcome, dnsError: addresses.error };
    ips = addresses.ips;
  }
  outcome.ip = ips[0]!;
  const connect = deps.connect ?? readBanner;
  outcome.result = await connect({ ip: outcome.ip, port, timeoutMs: deps.timeoutMs, proxy: deps.proxy });
  return outcome;
}

function describeOutcome(o: TargetOutcome): string {
  if (o.dnsError) return `DNS ${o.dnsError}`;
  if (!o.result) return 'not tried';
  if (!o.result.ok) return o.result.error;
  return `"${clip(`${o.result.code} ${o.result.text}`)}"`;
}

/** "mx.example.com", "mx.example.com:2525", "192.0.2.1:25", "[2001:db8::1]:25", "2001:db8::1" */
export function parseTarget(entry: string, defaultPort: number): { host: string; port: number } {
  const text = entry.trim();
  const bracketed = text.match(/^\[([^\]]+)\](?::(\d+))?$/);
  if (bracketed) return { host: bracketed[1]!, port: bracketed[2] ? Number(bracketed[2]) : defaultPort };
  if (isIP(text) === 6) return { host: text, port: defaultPort };
  const withPort = text.match(/^(.*):(\d+)$/);
  if (withPort) return { host: withPort[1]!.toLowerCase(), port: Number(withPort[2]) };
  return { host: text.toLowerCase(), port: defaultPort };
}

/**
 * Connects (directly or through a SOCKS5 proxy), reads the greeting (multi-line aware), says QUIT.
 * The local address is the socket's own; through a proxy it is the address the proxy reports for
 * its outgoing connection (BND.ADDR), which is its egress address unless it is behind NAT itself.
 */
export const readBanner: Connect = ({ ip, port, timeoutMs, proxy }) =>
  new Promise((resolve) => {
    let socket: net.Socket | undefined;
    let settled = false;
    let localAddress: string | null = null;
    const finish = (result: BannerResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (socket && result.ok) {
        // say goodbye and let the server close; a server that does not is cut off shortly
        const s = socket;
        s.end('QUIT\r\n');
        setTimeout(() => s.destroy(), 2000).unref();
      } else {
        socket?.destroy();
      }
      resolve(result);
    };
    const timer = setTimeout(() => finish({ ok: false, error: `no answer within ${timeoutMs} ms` }), timeoutMs);
    const onSocket = (s: net.Socket) => {
      socket = s;
      if (settled) return void s.destroy();
      let buffer = '';
      const lines: string[] = [];
      s.setEncoding('utf8');
      s.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, end).replace(/\r$/, '');
          buffer = buffer.slice(end + 1);
          lines.push(line.slice(4));
          const m = line.match(/^(\d{3})([ -]?)/);
          if (!m) return finish({ ok: false, error: `not an SMTP greeting: "${clip(line)}"` });
          if (m[2] !== '-') return finish({ ok: true, code: Number(m[1]), text: lines.join(' ').trim(), localAddress });
          if (buffer.length > 4096) return finish({ ok: false, error: 'greeting too long' });
        }
      });
      s.on('error', (error) => finish({ ok: false, error: errorCode(error) }));
      s.on('close', () => finish({ ok: false, error: 'connection closed before a greeting' }));
    };
    if (proxy) {
      SocksClient.createConnection({
        proxy: { host: proxy.host, port: proxy.port, type: 5, userId: proxy.username, password: proxy.password },
        command: 'connect',
        destination: { host: ip, port },
        timeout: timeoutMs,
      }).then((info) => {
        const bound = info.remoteHost?.host ? unmapped(info.remoteHost.host) : null;
        localAddress = bound && bound !== '0.0.0.0' && bound !== '::' ? bound : null; // some proxies do not say
        onSocket(info.socket);
      }, (error: Error) => finish({ ok: false, error: `proxy: ${error.message}` }));
      return;
    }
    const s = net.connect({ host: ip, port });
    s.once('connect', () => (localAddress = s.localAddress ? unmapped(s.localAddress) : null));
    onSocket(s);
  });

// ---------------------------------------------------------------------------------------------
// egress address

function egressAddress(deps: EgressDeps, localAddress: string | null): { ip: string | null; check: EgressCheck } {
  const configured = deps.egressIp?.trim();
  if (configured) {
    if (!isIP(configured)) {
      return { ip: null, check: { name: 'egress_ip', status: 'fail', message: `EV_EGRESS_IP is not an IP address: "${clip(configured)}".`, remedy: 'Set EV_EGRESS_IP to an IPv4 or IPv6 address, or leave it empty.' } };
    }
    return { ip: configured, check: { name: 'egress_ip', status: 'pass', message: `${configured} (EV_EGRESS_IP).`, remedy: null } };
  }
  if (!localAddress) {
    return {
      ip: null,
      check: {
        name: 'egress_ip', status: 'warn',
        message: 'Unknown: no probe connection was made and EV_EGRESS_IP is not set.',
        remedy: 'Set EV_EGRESS_IP to the public address this machine sends from.',
      },
    };
  }
  const source = deps.proxy ? 'as reported by the proxy' : 'the local address of the probe connection';
  if (isPrivateAddress(localAddress)) {
    if (deps.allowPrivateNetworks) {
      return { ip: localAddress, check: { name: 'egress_ip', status: 'pass', message: `${localAddress} (${source}; private, judged because EV_ALLOW_PRIVATE_NETWORKS=true).`, remedy: null } };
    }
    return {
      ip: localAddress,
      check: {
        name: 'egress_ip', status: 'warn',
        message: `${localAddress} (${source}) is a private address: behind NAT, receivers see another one.`,
        remedy: 'Set EV_EGRESS_IP to the public address (your provider shows it; or `curl -4 ifconfig.me` from this machine).',
      },
    };
  }
  return { ip: localAddress, check: { name: 'egress_ip', status: 'pass', message: `${localAddress} (${source}).`, remedy: null } };
}

// ---------------------------------------------------------------------------------------------
// reverse DNS

async function checkReverseDns(dns: EgressDns, ip: string, heloName: string): Promise<EgressCheck> {
  const ptr = await dns.reverse(ip);
  if (!ptr.ok) {
    return { name: 'rdns', status: 'warn', message: `Could not look up the PTR record of ${ip}: ${ptr.error}.`, remedy: 'Check DNS (EV_DNS_SERVERS) and run the check again.' };
  }
  const names = [...new Set(ptr.values.map(normalizeName))];
  const ask = `ask your hosting provider (it owns the reverse zone) to set the PTR record of ${ip} to ${heloName}, and publish ${heloName} → ${ip} in your DNS`;
  if (names.length === 0) {
    return { name: 'rdns', status: 'fail', message: `${ip} has no reverse DNS (PTR) record: many mail servers refuse or distrust such senders.`, remedy: `Set EV_HELO_NAME to a name you control and ${ask}.` };
  }
  const confirms = async (name: string) => {
    const forward = await dns.addresses(name);
    return forward.ok && forward.ips.some((a) => sameIp(a, ip));
  };
  const confirmed = (await Promise.all(names.map(async (n) => ((await confirms(n)) ? n : null)))).filter((n): n is string => n !== null);
  const shown = names.join(', ');
  if (names.includes(heloName)) {
    if (confirmed.includes(heloName)) {
      return { name: 'rdns', status: 'pass', message: `${ip} → ${heloName} → ${ip}: the PTR record matches EV_HELO_NAME and resolves back.`, remedy: null };
    }
    const forward = await dns.addresses(heloName);
    const to = forward.ok ? forward.ips.join(', ') : forward.error;
    return { name: 'rdns', status: 'fail', message: `${ip} → ${heloName}, but ${heloName} resolves to ${to}, not ${ip} (not forward-confirmed).`, remedy: `Publish an A/AAAA record ${heloName} → ${ip}.` };
  }
  if (confirmed.length === 0) {
    return {
      name: 'rdns', status: 'fail',
      message: `${ip} → ${shown}, which does not resolve back to ${ip} (not forward-confirmed), and EV_HELO_NAME is ${heloName}.`,
      remedy: `Set EV_HELO_NAME to a name you control and ${ask}.`,
    };
  }
  return {
    name: 'rdns', status: 'warn',
    message: `The PTR record of ${ip} is ${shown}, but EV_HELO_NAME is ${heloName}.`,
    remedy: `Set EV_HELO_NAME=${confirmed[0]} (it resolves back to ${ip}), or ${ask}.`,
  };
}

// ---------------------------------------------------------------------------------------------
// DNS blocklists

async function checkBlocklists(dns: EgressDns, ip: string, zones: string[]): Promise<EgressCheck> {
  if (zones.length === 0) return { name: 'dnsbl', status: 'pass', message: 'Not checked: EV_DNSBL_ZONES is empty.', remedy: null };
  const reversed = reverseLabels(ip);
  if (!reversed) return { name: 'dnsbl', status: 'warn', message: `Not checked: ${ip} is not an IP address.`, remedy: null };
  const answers = await Promise.all(zones.map(async (zone) => ({ zone, answer: await dns.ipv4(`${reversed}.${zone}`) })));
  const listed: string[] = [];
  const unchecked: string[] = [];
  for (const { zone, answer } of answers) {
    if (!answer.ok) unchecked.push(`${zone} (${answer.error})`);
    else if (answer.values.length === 0) continue;
    // 127.255.255.x: Spamhaus's "query refused" codes (public resolver, over quota, bad zone)
    else if (answer.values.every((a) => a.startsWith('127.255.255.'))) unchecked.push(`${zone} (refused the query: ${answer.values.join(', ')})`);
    else if (answer.values.some((a) => a.startsWith('127.'))) listed.push(`${zone} (${answer.values.filter((a) => a.startsWith('127.')).join(', ')})`);
    else unchecked.push(`${zone} (unexpected answer ${answer.values.join(', ')}: does the resolver rewrite NXDOMAIN?)`);
  }
  if (listed.length > 0) {
    return {
      name: 'dnsbl', status: 'fail',
      message: `${ip} is listed on ${listed.join('; ')}${unchecked.length ? `; could not check ${unchecked.join('; ')}` : ''}.`,
      remedy: 'Mail servers using these lists refuse or throttle this address: look it up on the list\'s site (e.g. https://check.spamhaus.org) and ask for removal, or send from another address (EV_SMTP_PROXY).',
    };
  }
  if (unchecked.length > 0) {
    const clean = zones.length - unchecked.length;
    return {
      name: 'dnsbl', status: 'warn',
      message: `Could not check ${unchecked.join('; ')}${clean ? `; not listed on the other ${clean}` : ''}.`,
      remedy: 'Some lists refuse queries from public resolvers (Spamhaus answers 127.255.255.254): use a resolver of your own in EV_DNS_SERVERS.',
    };
  }
  return { name: 'dnsbl', status: 'pass', message: `${ip} is on none of ${zones.join(', ')}.`, remedy: null };
}

/** 192.0.2.1 → "1.2.0.192"; IPv6 in nibble format (RFC 5782): 2001:db8::1 → "1.0.0.0…8.b.d.0.1.0.0.2" */
export function reverseLabels(ip: string): string | null {
  const address = unmapped(ip);
  const family = isIP(address);
  if (family === 4) return address.split('.').reverse().join('.');
  if (family !== 6) return null;
  return expandIPv6(address).split('').reverse().join('.');
}

/** The 32 hex digits of an IPv6 address. */
function expandIPv6(ip: string): string {
  let text = ip.toLowerCase();
  const v4 = text.match(/(\d+\.\d+\.\d+\.\d+)$/);
  if (v4) {
    const [a, b, c, d] = v4[1]!.split('.').map(Number) as [number, number, number, number];
    text = text.slice(0, -v4[1]!.length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') as [string, string] : [text, null];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === null ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return groups.map((g) => g.padStart(4, '0')).join('');
}

// ---------------------------------------------------------------------------------------------
// DNS

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
  const base = createDnsResolver({ servers: options.servers, timeoutMs: timeout, tries, minTtlMs: 0, mxTtlMs: 0, negativeTtlMs: 0, canaries: options.canaries, healthTtlMs: 0 });
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

// ---------------------------------------------------------------------------------------------

const normalizeName = (name: string) => name.trim().toLowerCase().replace(/\.$/, '');

function unmapped(ip: string): string {
  return ip.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, '$1');
}

function sameIp(a: string, b: string): boolean {
  const [x, y] = [unmapped(a), unmapped(b)];
  if (isIP(x) === 6 && isIP(y) === 6) return expandIPv6(x) === expandIPv6(y);
  return x === y;
}

function errorCode(error: unknown): string {
  return (error as { code?: string })?.code ?? (error instanceof Error ? error.message : String(error));
}

function clip(text: string, max = 160): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
