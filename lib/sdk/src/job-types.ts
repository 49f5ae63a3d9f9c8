// Bulk jobs: what is submitted, their status, summary and list (POST/GET /v1/verify/bulk…), as the
// OpenAPI document (GET /v1/openapi.json) states them; lib/sdk/test/types.test.ts keeps them equal to
// the server's schemas (checked by tsc).
import type { Reason, RiskLevel, SubReason, VerdictStatus } from './verdict-types.ts';

export type Bucket = 'deliverable' | 'undeliverable' | 'risky' | 'unknown';
export type JobState = 'queued' | 'processing' | 'completed' | 'cancelled' | 'failed';

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
