// The API's shapes, as the OpenAPI document (GET /v1/openapi.json) states them. The repository keeps
// them equal to the server's schemas (lib/sdk/src/types.test.ts, checked by tsc).

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
export type Bucket = 'deliverable' | 'undeliverable' | 'risky' | 'unknown';
export type JobState = 'queued' | 'processing' | 'completed' | 'cancelled' | 'failed';
export type WebhookEvent = 'bulk.completed' | 'bulk.failed' | 'quota.warning' | 'quota.exceeded' | 'list.expiring' | 'list.changed';
export type EventType = WebhookEvent | 'webhook.test';

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

export interface BulkItem {
  email: string;
  valid: boolean;
  deliverable: boolean;
  risk_level: RiskLevel;
  reason: Reason;
  cached: boolean;
  status: VerdictStatus;
  score: number;
  sub_reason: SubReason | null;
  mailbox_provider: string | null;
  rule_id: string | null;
  /** when the address was last checked (ISO 8601): the time of the result it repeats when it was reused */
  checked_at: string;
  /** answered from an earlier result of the account, not charged */
  reused: boolean;
}

export interface JobSummary {
  total: number;
  /** rows that repeat an earlier mailbox: not verified, not charged */
  duplicates?: number;
  valid: number;
  invalid: number;
  unknown: number;
  failed: number;
  deliverable: number;
  undeliverable: number;
  risky: number;
}

/** the list's addresses by who receives their mail */
export interface ProviderCounts {
  google: number;
  microsoft: number;
  yahoo: number;
  other: number;
}

interface FormatCounts {
  total_emails: number;
  valid_emails: number;
  invalid_format_emails: number;
  /** rows that repeat an earlier mailbox of the list: verified and charged once */
  duplicate_emails: number;
}

export interface BulkInstant extends FormatCounts {
  success: true;
  instant: true;
  job_id: string;
  status: 'completed';
  results: BulkItem[];
  summary: JobSummary;
  message: string;
}

export interface BulkQueued extends FormatCounts {
  success: true;
  job_id: string;
  status: 'queued';
  /** addresses answered from the account's fresh results (reuse on): not reserved, not charged */
  reused_emails: number;
  estimated_time: string;
  message: string;
}

export type BulkSubmitted = BulkInstant | BulkQueued;

export interface BulkInput {
  emails?: string[];
  /** the original CSV rows, one per address; the download puts them back in front of the verdict columns */
  rows?: string[][];
  /** with `rows` and no `emails`: the index of the address column */
  email_column?: number;
  columns?: string[];
  filename?: string;
  /** the uploaded file's format, which the download keeps by default */
  delimiter?: ',' | ';' | '\t' | '|';
  bom?: boolean;
  newline?: '\r\n' | '\n';
  /** an .xlsx upload: the sheet it was read from */
  sheet?: string;
}

export interface JobStatus {
  success: true;
  job_id: string;
  status: JobState;
  progress: number;
  processed_emails: number;
  total_emails: number;
  duplicate_emails: number;
  /** while queued or processing: what the job waits for */
  waiting?: { addresses: number; next_try_at: string } | null;
  sandbox: boolean;
  filename: string | null;
  created_at: string;
  /** a monitor's run: its monitor; null for a list submitted by hand */
  monitor_id: string | null;
  /** a monitor's run: the run (or list) it is compared with */
  previous_job_id: string | null;
  error?: string | null;
  data?: {
    results: BulkItem[];
    results_total: number;
    summary: JobSummary;
    providers: ProviderCounts;
    completed_at: string;
  };
}

export interface JobListItem extends FormatCounts {
  job_id: string;
  status: JobState;
  sandbox: boolean;
  instant: boolean;
  processed_emails: number;
  progress: number;
  filename: string | null;
  created_at: string;
  completed_at: string | null;
}

/** GET /v1/verify/bulk: one page of jobs */
export interface JobPage {
  success: true;
  data: JobListItem[];
  next_cursor: string | null;
}

export interface JobCancelled {
  success: true;
  job_id: string;
  status: 'cancelled';
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

export * from './account-types.ts';

export * from './monitor-types.ts';
