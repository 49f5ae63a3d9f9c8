import type { VerdictStatus } from './verdict-types.ts';

/** Monitors (GET/POST/PATCH/DELETE /v1/monitors) and the reuse of fresh results (GET/POST /v1/account/reuse). */

export interface VerdictChange {
  from: VerdictStatus;
  to: VerdictStatus;
  /** rows (duplicates included) that went from `from` to `to` */
  count: number;
}

export interface Monitor {
  id: string;
  /** the list (a completed job) re-verified */
  list_id: string;
  interval_days: number;
  paused: boolean;
  sandbox: boolean;
  next_run_at: string;
  latest_job_id: string | null;
  last_skipped_at: string | null;
  /** insufficient_credits, list_gone */
  last_skip_reason: string | null;
  created_at: string;
}

export interface MonitorCreated extends Monitor {
  success: true;
}

export interface MonitorList {
  success: true;
  data: Monitor[];
}

/** the list or one run: counts per verdict bucket (the list's health) and what changed against the one before */
export interface MonitorRun {
  job_id: string;
  status: string;
  started_at: string;
  completed_at: string | null;
  deliverable: number;
  undeliverable: number;
  risky: number;
  unknown: number;
  changed_emails: number | null;
  changes: VerdictChange[];
}

export interface MonitorDetail extends MonitorCreated {
  /** the list, then each run, oldest first */
  runs: MonitorRun[];
}

export interface MonitorDeleted {
  success: true;
  id: string;
  deleted: true;
}

export interface MonitorInput {
  list_id: string;
  /** 30, 60, 90 or any number of days from 1 to 365 */
  interval_days: number;
}

export interface MonitorUpdate {
  paused?: boolean;
  interval_days?: number;
}

export interface ListChangedEvent {
  id: string;
  created_at: string;
  sandbox: boolean;
  type: 'list.changed';
  data: {
    monitor_id: string;
    list_id: string | null;
    job_id: string;
    previous_job_id: string;
    total_emails: number;
    changed_emails: number;
    changes: VerdictChange[];
    changed_download_url: string;
    completed_at: string;
  };
}

export interface ReuseSettings {
  success: true;
  enabled: boolean;
  /** the freshness window in days; null when reuse is off */
  days: number | null;
}
