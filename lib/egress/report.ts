import type { EgressDns } from '../verifier/dns';
import type { SocksProxy } from '../verifier/proxy';

/** What the egress check reports and what it is given (check.ts). */

export type CheckStatus = 'pass' | 'warn' | 'fail';
export type CheckName = 'identity' | 'port25' | 'egress_ip' | 'rdns' | 'dnsbl' | 'resolver' | 'refusals';

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
  checkedAt: string;
  /** the egress this report is about: its politeness budget key (lib/egress/egress.ts) */
  egress: string;
  /** EV_SMTP_SOURCE_IP: the local address probes bind to; null: the system's choice */
  sourceIp: string | null;
  egressIp: string | null;
  heloName: string;
  checks: EgressCheck[];
}

export type { EgressDns, Lookup } from '../verifier/dns';

/** What an SMTP server said first, or why nothing was said. */
export type BannerResult = { ok: true; code: number; text: string; localAddress: string | null } | { ok: false; error: string };

export type Connect = (target: {
  ip: string;
  port: number;
  timeoutMs: number;
  proxy?: SocksProxy | null;
  localAddress?: string | null;
}) => Promise<BannerResult>;

export interface EgressDeps {
  dns: EgressDns;
  /** defaults to a real TCP connection (through `proxy` when given) */
  connect?: Connect;
  proxy?: SocksProxy | null;
  /** the egress's budget key and the local address its probes bind to (EV_SMTP_SOURCE_IP) */
  egress?: string;
  localAddress?: string | null;
  /** the HELO name of this egress (EV_SMTP_SOURCE_HELO, else EV_HELO_NAME) */
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

/** A host name as compared: lower case, no trailing dot. */
export const normalizeName = (name: string) => name.trim().toLowerCase().replace(/\.$/, '');

export function clip(text: string, max = 160): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
