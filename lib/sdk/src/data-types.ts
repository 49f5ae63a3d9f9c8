// Retention, erasure and export, as the OpenAPI document states them (docs/retention.md).

export interface ExpiringList {
  job_id: string;
  filename: string | null;
  total_emails: number;
  created_at: string;
  /** when the list, its results and its uploaded rows are deleted */
  expires_at: string;
}

export interface RetentionState {
  success: true;
  /** days data is kept; null: until deleted */
  retention_days: number | null;
  /** the account's own setting; null: the installation's default */
  account_days: number | null;
  default_days: number | null;
  /** the most an account may set; null: any number */
  max_days: number | null;
  /** lists deleted within 7 days, soonest first */
  expiring: ExpiringList[];
}

export interface AddressErased {
  success: true;
  email: string;
  removed: { results: number; list_rows: number; rules: number; idempotency_answers: number; webhook_deliveries: number };
}

export interface ListExpiringEvent {
  id: string;
  created_at: string;
  sandbox: boolean;
  type: 'list.expiring';
  data: { job_id: string; filename: string | null; total_emails: number; created_at: string; expires_at: string; days_left: 7 | 1; download_url: string };
}
