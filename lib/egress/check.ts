import { isIP } from 'node:net';
import { isPrivateAddress } from '../verifier/net';
import { checkBlocklists, checkResolver, checkReverseDns } from './dns-checks';
import { checkPort25 } from './port25';
import { clip, normalizeName, worst, type EgressCheck, type EgressDeps, type EgressReport } from './report';

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

export type { BannerResult, CheckName, CheckStatus, Connect, EgressCheck, EgressDeps, EgressDns, EgressReport, Lookup } from './report';
export { worst } from './report';
export { parseTarget } from './port25';
export { createEgressDns } from '../verifier/dns';
export { reverseLabels } from '../verifier/net';

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
    checkedAt: new Date(now()).toISOString(),
    egress: deps.egress ?? 'default',
    sourceIp: deps.localAddress ?? null,
    egressIp: egress.ip,
    heloName,
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

export const IDENTITY_REMEDY =
  "Set EV_HELO_NAME to this machine's public host name (the PTR name of its egress IP) and EV_MAIL_FROM to an address of a domain you own; " +
  'EV_ALLOW_PLACEHOLDER_IDENTITY=true allows the placeholder (tests and labs only).';

function checkIdentity(heloName: string, mailFrom: string, allowed: boolean): EgressCheck {
  const problem = placeholderIdentity(heloName, mailFrom);
  if (!problem) return { name: 'identity', status: 'pass', message: `Probes say HELO ${heloName} and MAIL FROM <${mailFrom}>.`, remedy: null };
  if (allowed)
    return {
      name: 'identity',
      status: 'warn',
      message: `Probing with a placeholder identity (EV_ALLOW_PLACEHOLDER_IDENTITY=true): ${problem}.`,
      remedy: IDENTITY_REMEDY,
    };
  return { name: 'identity', status: 'fail', message: `Production probing is off: ${problem}.`, remedy: IDENTITY_REMEDY };
}

// ---------------------------------------------------------------------------------------------
// egress address

function egressAddress(deps: EgressDeps, localAddress: string | null): { ip: string | null; check: EgressCheck } {
  const configured = deps.egressIp?.trim();
  if (configured) {
    if (!isIP(configured)) {
      return {
        ip: null,
        check: {
          name: 'egress_ip',
          status: 'fail',
          message: `EV_EGRESS_IP is not an IP address: "${clip(configured)}".`,
          remedy: 'Set EV_EGRESS_IP to an IPv4 or IPv6 address, or leave it empty.',
        },
      };
    }
    return { ip: configured, check: { name: 'egress_ip', status: 'pass', message: `${configured} (EV_EGRESS_IP).`, remedy: null } };
  }
  if (!localAddress) {
    return {
      ip: null,
      check: {
        name: 'egress_ip',
        status: 'warn',
        message: 'Unknown: no probe connection was made and EV_EGRESS_IP is not set.',
        remedy: 'Set EV_EGRESS_IP to the public address this machine sends from.',
      },
    };
  }
  const source = deps.proxy ? 'as reported by the proxy' : 'the local address of the probe connection';
  if (isPrivateAddress(localAddress)) {
    if (deps.allowPrivateNetworks) {
      return {
        ip: localAddress,
        check: {
          name: 'egress_ip',
          status: 'pass',
          message: `${localAddress} (${source}; private, judged because EV_ALLOW_PRIVATE_NETWORKS=true).`,
          remedy: null,
        },
      };
    }
    return {
      ip: localAddress,
      check: {
        name: 'egress_ip',
        status: 'warn',
        message: `${localAddress} (${source}) is a private address: behind NAT, receivers see another one.`,
        remedy: 'Set EV_EGRESS_IP to the public address (your provider shows it; or `curl -4 ifconfig.me` from this machine).',
      },
    };
  }
  return { ip: localAddress, check: { name: 'egress_ip', status: 'pass', message: `${localAddress} (${source}).`, remedy: null } };
}
