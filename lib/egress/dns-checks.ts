import type { DnsResolver } from '../verifier/dns';
import { reverseLabels, sameIp } from '../verifier/net';
import { normalizeName, type EgressCheck, type EgressDns } from './report';

/** The checks that ask DNS: reverse DNS of the egress address, the blocklists, the resolver itself. */

export async function checkReverseDns(dns: EgressDns, ip: string, heloName: string): Promise<EgressCheck> {
  const ptr = await dns.reverse(ip);
  if (!ptr.ok) {
    return {
      name: 'rdns',
      status: 'warn',
      message: `Could not look up the PTR record of ${ip}: ${ptr.error}.`,
      remedy: 'Check DNS (EV_DNS_SERVERS) and run the check again.',
    };
  }
  const names = [...new Set(ptr.values.map(normalizeName))];
  const ask = `ask your hosting provider (it owns the reverse zone) to set the PTR record of ${ip} to ${heloName}, and publish ${heloName} → ${ip} in your DNS`;
  if (names.length === 0) {
    return {
      name: 'rdns',
      status: 'fail',
      message: `${ip} has no reverse DNS (PTR) record: many mail servers refuse or distrust such senders.`,
      remedy: `Set EV_HELO_NAME to a name you control and ${ask}.`,
    };
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
    return {
      name: 'rdns',
      status: 'fail',
      message: `${ip} → ${heloName}, but ${heloName} resolves to ${to}, not ${ip} (not forward-confirmed).`,
      remedy: `Publish an A/AAAA record ${heloName} → ${ip}.`,
    };
  }
  if (confirmed.length === 0) {
    return {
      name: 'rdns',
      status: 'fail',
      message: `${ip} → ${shown}, which does not resolve back to ${ip} (not forward-confirmed), and EV_HELO_NAME is ${heloName}.`,
      remedy: `Set EV_HELO_NAME to a name you control and ${ask}.`,
    };
  }
  return {
    name: 'rdns',
    status: 'warn',
    message: `The PTR record of ${ip} is ${shown}, but EV_HELO_NAME is ${heloName}.`,
    remedy: `Set EV_HELO_NAME=${confirmed[0]} (it resolves back to ${ip}), or ${ask}.`,
  };
}

export async function checkBlocklists(dns: EgressDns, ip: string, zones: string[]): Promise<EgressCheck> {
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
      name: 'dnsbl',
      status: 'fail',
      message: `${ip} is listed on ${listed.join('; ')}${unchecked.length ? `; could not check ${unchecked.join('; ')}` : ''}.`,
      remedy:
        "Mail servers using these lists refuse or throttle this address: look it up on the list's site (e.g. https://check.spamhaus.org) and ask for removal, or send from another address (EV_SMTP_PROXY).",
    };
  }
  if (unchecked.length > 0) {
    const clean = zones.length - unchecked.length;
    return {
      name: 'dnsbl',
      status: 'warn',
      message: `Could not check ${unchecked.join('; ')}${clean ? `; not listed on the other ${clean}` : ''}.`,
      remedy: 'Some lists refuse queries from public resolvers (Spamhaus answers 127.255.255.254): use a resolver of your own in EV_DNS_SERVERS.',
    };
  }
  return { name: 'dnsbl', status: 'pass', message: `${ip} is on none of ${zones.join(', ')}.`, remedy: null };
}

export async function checkResolver(health: NonNullable<DnsResolver['health']>): Promise<EgressCheck> {
  const answer = await health();
  if (!answer.lying) return { name: 'resolver', status: 'pass', message: 'The DNS resolver answers for the canary names (EV_DNS_CANARIES).', remedy: null };
  return {
    name: 'resolver',
    status: 'fail',
    message: `The DNS resolver is lying: ${answer.detail}. Verdicts that rest on NXDOMAIN are answered unknown (resolver_unreliable).`,
    remedy:
      "Point EV_DNS_SERVERS at a recursive resolver that answers for the public DNS (a local unbound, or your provider's), or correct EV_DNS_CANARIES if a name in it really does not exist.",
  };
}
