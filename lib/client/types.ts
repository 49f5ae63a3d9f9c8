// The /v1 API's response shapes, as the dashboard reads them (the contract: lib/api/responses.ts).
import type { Scope } from '../accounts/scopes';
import type { Bucket, Reason, RiskLevel, SubReason, VerdictStatus } from '../verifier/vocabulary';

export type { Reason, RiskLevel, SubReason, VerdictStatus };
export type JobState = 'queued' | 'processing' | 'completed' | 'failed' | 'cancelled';
export type VerdictFilter = Bucket;

export interface BulkItem {
  email: string;
  valid: boolean;
  deliverable: boolean;
  risk_level: RiskLevel;
  reason: Reason;
  cached: boolean;
  status?: VerdictStatus;
  score?: number;
}

export interface SingleResult extends BulkItem {
  provider: string;
  mailbox_provider?: string | null;
  sub_reason?: SubReason | null;
  response_time: number;
  confidence: number;
  details: { syntax_valid: boolean; domain_exists: boolean; mx_record: boolean; smtp_valid: boolean };
  disposable?: boolean;
  role?: boolean;
  free?: boolean;
  catch_all?: boolean;
  did_you_mean?: string | null;
  evidence?: { mx_host?: string | null; smtp_code?: number | null; smtp_enhanced_code?: string | null; smtp_message?: string | null; smtp_failure?: string | null; attempts?: number | null; tls?: boolean; dns_failure?: string | null; control_code?: number | null; control_enhanced_code?: string | null; control_message?: string | null };
}

export interface BulkSubmitted {
  success: boolean;
  job_id: string;
  status: JobState;
  instant?: boolean;
  total_emails: number;
  valid_emails: number;
  invalid_format_emails: number;
  duplicate_emails: number;
  estimated_time?: string;
  message: string;
}

export interface BulkRequest {
  emails?: string[];
  email_column?: number;
  rows?: string[][];
  columns?: string[];
  filename?: string;
  /** the upload's format, kept for the download */
  delimiter?: ',' | ';' | '\t' | '|';
  bom?: boolean;
  newline?: '\r\n' | '\n';
  sheet?: string;
}

export interface JobListItem {
  job_id: string;
  status: JobState;
  sandbox: boolean;
  total_emails: number;
  duplicate_emails: number;
  processed_emails: number;
  progress: number;
  created_at: string;
  completed_at: string | null;
  filename: string | null;
}

// The summary's shape is the server's own (a type-only import: nothing of the server is bundled).
export type { JobSummary } from '../results/summary';
import type { JobSummary } from '../results/summary';
import type { ProviderCounts, Waiting } from '../jobs/insights';
export type { ProviderCounts, Waiting } from '../jobs/insights';
// GET /v1/egress: the server's own type as well.
export type { EgressStatus } from '../egress/state';
export type { EgressCheck, CheckStatus } from '../egress/check';

export interface JobStatus {
  success: boolean;
  status: JobState;
  progress: number;
  processed_emails: number;
  total_emails: number;
  duplicate_emails: number;
  /** the job's mode: its download links name it (a link cannot send X-EV-Sandbox) */
  sandbox: boolean;
  filename: string | null;
  created_at: string;
  /** queued or processing: addresses handed back to be asked again later, or null */
  waiting?: Waiting | null;
  data?: { results: BulkItem[]; summary: JobSummary; providers: ProviderCounts; completed_at: string; results_total: number };
}

export interface HistoryItem {
  id: string;
  email: string;
  status: string;
  valid: boolean;
  deliverable: boolean;
  risk_level: RiskLevel;
  reason: string;
  score: number;
  sandbox: boolean;
  source: 'single' | 'bulk';
  job_id: string | null;
  created_at: string;
}

export interface Page<T> {
  success: boolean;
  data: T[];
  next_cursor: string | null;
}

// the server's own shape (a type-only import: nothing of lib/accounts reaches the browser)
export type { ApiKeyInfo } from '../accounts/keys';

/** POST /v1/keys and PATCH /v1/keys/{id} (lib/api/schemas.ts keyBody, keyUpdateBody). */
export interface KeyBody {
  name?: string;
  type?: 'secret' | 'publishable';
  scopes?: Scope[] | null;
  allowed_ips?: string[] | null;
  allowed_origins?: string[];
  expires_at?: string | null;
}

export interface Webhook {
  id: string;
  url: string;
  events: string[];
  description?: string | null;
  created_at: string;
  secret?: string;
}

export interface Delivery {
  id: string;
  event_type: string;
  state: string;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  created_at: string;
}

export interface AccountUsage {
  email: string;
  plan: string;
  free_remaining_today: number;
  credits: number;
  used_today?: number;
}
