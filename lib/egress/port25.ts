import { isIP } from 'node:net';
import { readBanner } from './banner';
import { clip, type BannerResult, type EgressCheck, type EgressDeps } from './report';

/** The port 25 check: does a mail server greet this machine (or its proxy)? */

interface TargetOutcome {
  target: string;
  host?: string;
  ip?: string;
  port: number;
  /** the name could not be resolved */
  dnsError?: string;
  result?: BannerResult;
}

export async function checkPort25(deps: EgressDeps): Promise<{ check: EgressCheck; localAddress: string | null }> {
  const via = deps.proxy ? ` through the proxy ${deps.proxy.host}:${deps.proxy.port}` : '';
  if (deps.probeTargets.length === 0) {
    return {
      check: {
        name: 'port25',
        status: 'warn',
        message: 'Not checked: EV_EGRESS_PROBE_HOSTS is empty.',
        remedy: 'Set EV_EGRESS_PROBE_HOSTS to one or more mail servers (host or domain[:port]).',
      },
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
      check: {
        name: 'port25',
        status: 'pass',
        message: `${where(greeted)} answered${via}: "${clip(`${greeted.result.code} ${greeted.result.text}`)}".`,
        remedy: null,
      },
      localAddress,
    };
  }
  const problems = outcomes.map((o) => `${where(o)}: ${describeOutcome(o)}`).join('; ');
  if (answered.length > 0) {
    return {
      check: {
        name: 'port25',
        status: 'warn',
        message: `Port ${deps.smtpPort} is open${via}, but no server greeted with 220: ${problems}.`,
        remedy: 'The servers refused this address: read their message, and look at the reverse DNS and blocklist checks below.',
      },
      localAddress,
    };
  }
  if (outcomes.every((o) => o.dnsError)) {
    return {
      check: {
        name: 'port25',
        status: 'warn',
        message: `Could not resolve any probe target: ${problems}.`,
        remedy: 'Check DNS (EV_DNS_SERVERS) and EV_EGRESS_PROBE_HOSTS.',
      },
      localAddress: null,
    };
  }
  return {
    check: {
      name: 'port25',
      status: 'fail',
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
  outcome.result = await connect({ ip: outcome.ip, port, timeoutMs: deps.timeoutMs, proxy: deps.proxy, localAddress: deps.localAddress });
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
