// The installation's egress health (GET /v1/egress), as the OpenAPI document states it.

export type EgressCheckStatus = 'pass' | 'warn' | 'fail';

export interface EgressCheck {
  name: 'port25' | 'egress_ip' | 'rdns' | 'dnsbl' | 'resolver' | 'identity' | 'refusals';
  status: EgressCheckStatus;
  message: string;
  remedy: string | null;
}

/** One egress's checks: port 25, reverse DNS, blocklists, resolver, sender identity. */
export interface EgressChecks {
  /** the worst check */
  status: EgressCheckStatus;
  checked_at: string;
  /** its politeness budget key: `ip:<address>`, `socks:<host>:<port>` or `default` */
  egress: string;
  /** EV_SMTP_SOURCE_IP */
  source_ip: string | null;
  egress_ip: string | null;
  helo_name: string;
  checks: EgressCheck[];
}

/** This process's egress, the policy (EV_EGRESS_POLICY), and every egress of the fleet. */
export interface EgressStatus extends EgressChecks {
  policy: 'warn' | 'pause' | 'off';
  production_paused: boolean;
  egresses: EgressChecks[];
}

/** GET /v1/egress */
export interface EgressReport {
  success: true;
  data: EgressStatus;
}
