import type { Env } from '../config/env';
import type { SocksProxy } from '../verifier/proxy';

/**
 * Which egress this process sends from: the budget identity of its SMTP politeness. Mail
 * providers throttle per sending IP, so the budgets (concurrency, pace, 421 holds, greylist times)
 * are kept per (egress, provider or MX host): two workers on one egress share its budget, N
 * egresses give N budgets (docs/operations.md).
 */
export interface Egress {
  /** the budget key: `ip:<address>` (EV_EGRESS_IP, else EV_SMTP_SOURCE_IP), `socks:<host>:<port>`, or `default` */
  key: string;
  /** EV_SMTP_SOURCE_IP: the local address SMTP connections bind to (null: the system's choice) */
  sourceIp: string | null;
  /** the HELO name probes say: EV_SMTP_SOURCE_HELO (that IP's PTR name), else EV_HELO_NAME */
  heloName: string;
  proxy: SocksProxy | null;
}

type EgressEnv = Pick<Env, 'EV_SMTP_SOURCE_IP' | 'EV_SMTP_SOURCE_HELO' | 'EV_HELO_NAME' | 'EV_SMTP_PROXY' | 'EV_EGRESS_IP'>;

export function egressOf(config: EgressEnv): Egress {
  const sourceIp = config.EV_SMTP_SOURCE_IP || null;
  const proxy = config.EV_SMTP_PROXY;
  // What receivers see decides the budget: the public address when it is stated (behind NAT two
  // private source addresses may be one public one), else the proxy's exit, else the bound address.
  const key = config.EV_EGRESS_IP ? `ip:${config.EV_EGRESS_IP}` : proxy ? `socks:${proxy.host}:${proxy.port}` : sourceIp ? `ip:${sourceIp}` : 'default';
  return { key, sourceIp, heloName: config.EV_SMTP_SOURCE_HELO || config.EV_HELO_NAME, proxy };
}
