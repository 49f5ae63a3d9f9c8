// A verification's answer, alone (POST /v1/verify, /v1/verify/single) and in the history, as the
// OpenAPI document (GET /v1/openapi.json) states it; lib/sdk/test/types.test.ts keeps it equal to the
// server's schemas (checked by tsc). The verdict words mirror lib/verifier/vocabulary.ts.

export type RiskLevel = 'low' | 'medium' | 'high' | 'unknown';
export type Reason =
  | 'accepted_email'
  | 'rejected_email'
  | 'invalid_email'
  | 'invalid_domain'
  | 'no_mx'
  | 'accept_all'
  | 'disposable_email'
  | 'role_account'
  | 'low_quality'
  | 'timeout'
  | 'no_connect'
  | 'unavailable_smtp'
  | 'unexpected_error'
  | 'allowlisted'
  | 'blocklisted';
export type SubReason =
  | 'greylisted'
  | 'try_again_later'
  | 'throttled'
  | 'timeout'
  | 'no_connect'
  | 'connection_dropped'
  | 'protocol_error'
  | 'tls_required'
  | 'tls_failed'
  | 'blocked_by_policy'
  | 'ip_blocklisted'
  | 'smtputf8_unsupported'
  | 'provider_unverifiable'
  | 'catch_all_unknown'
  | 'dns_failure'
  | 'resolver_unreliable'
  | 'mx_unresolvable'
  | 'mailbox_full'
  | 'private_address'
  | 'verifier_unavailable'
  | 'sender_rejected'
  | 'host_rejected'
  | 'reverse_dns'
  | 'rate_limited'
  | 'auth_required'
  | 'message_rejected'
  | 'server_error'
  | 'unclear_rejection'
  | 'rejection_differs'
  | 'postmaster_refused'
  | 'unexpected_error';
export type VerdictStatus = 'deliverable' | 'undeliverable' | 'risky' | 'catch-all' | 'disposable' | 'role-based' | 'unknown';

export interface Evidence {
  mx_host: string | null;
  smtp_code: number | null;
  smtp_enhanced_code: string | null;
  smtp_message: string | null;
  smtp_failure: string | null;
  attempts: number;
  /** the conversation was upgraded with STARTTLS */
  tls: boolean;
  /** what DNS said when it decided the verdict */
  dns_failure: string | null;
  /** the reply to a made-up address of the same domain, beside the address's own */
  control_code: number | null;
  control_enhanced_code: string | null;
  control_message: string | null;
  postmaster_code: number | null;
  postmaster_message: string | null;
}

export interface SingleResult {
  email: string;
  /** the local part in NFC with its case kept, the domain per UTS #46 */
  normalized_email: string | null;
  valid: boolean;
  deliverable: boolean;
  risk_level: RiskLevel;
  provider: string;
  /** who receives the mail, from the domain's MX hosts (google, microsoft, yahoo, …, or a gateway) */
  mailbox_provider: string | null;
  /** milliseconds */
  response_time: number;
  confidence: number;
  details: { syntax_valid: boolean; domain_exists: boolean; mx_record: boolean; smtp_valid: boolean };
  reason: Reason;
  sub_reason: SubReason | null;
  cached: boolean;
  status: VerdictStatus;
  /** 0-100: deliverable ≥ 80, undeliverable 0 */
  score: number;
  disposable: boolean;
  role: boolean;
  free: boolean;
  catch_all: boolean;
  did_you_mean: string | null;
  evidence: Evidence | null;
  /** the allow or block rule that decided the verdict (reason allowlisted / blocklisted); null otherwise */
  rule_id: string | null;
  sandbox: boolean;
}

export interface VerifyResult extends SingleResult {
  is_disposable: boolean;
}

export interface HistoryRecord {
  id: string;
  email: string;
  status: VerdictStatus;
  valid: boolean;
  deliverable: boolean;
  risk_level: RiskLevel;
  reason: Reason;
  score: number;
  sandbox: boolean;
  source: 'single' | 'bulk';
  job_id: string | null;
  created_at: string;
}

/** GET /v1/history: one page */
export interface HistoryPage {
  success: true;
  data: HistoryRecord[];
  next_cursor: string | null;
}
