import type { Role } from './key-types.ts';
// Allow and block rules, the quota warning and usage, as the OpenAPI document states them.

export type RuleAction = 'allow' | 'block';
export type RuleMatch = 'email' | 'domain' | 'mx' | 'tld';

export interface RuleInput {
  action: RuleAction;
  /** the most specific match wins: email, domain, MX host, TLD; at one level a block beats an allow */
  match: RuleMatch;
  value: string;
}

export interface Rule {
  id: string;
  action: RuleAction;
  match: RuleMatch;
  /** as compared: ASCII letters lower-cased, domains and hosts in A-labels, a TLD without its dot */
  value: string;
  created_at: string;
}

export interface RuleCreated extends Rule {
  success: true;
}

export interface RuleImport {
  success: true;
  /** rules added; the others were already there */
  created: number;
  /** one per rule sent, in order */
  data: Rule[];
}

export interface QuotaState {
  success: true;
  credits: number;
  free_remaining_today: number;
  /** credits plus today's free checks */
  remaining: number;
  warning_below: number;
  warning_below_is_default: boolean;
  /** remaining is below warning_below */
  below: boolean;
  /** the last refusal for want of credits that sent quota.exceeded */
  exceeded_at: string | null;
}

export interface UsageRow {
  /** UTC, YYYY-MM-DD */
  day: string;
  mode: 'production' | 'sandbox';
  checks: number;
  deliverable: number;
  undeliverable: number;
  risky: number;
  unknown: number;
  charged: number;
  refunded: number;
  /** null while the installation does not record grants */
  credits_granted: number;
}

/** One person's charged checks in the organisation (`usage({ by: 'member' })`). */
export interface MemberUsage {
  user_id: string;
  email: string;
  /** null: no longer a member (keys they made keep working and count here) */
  role: Role | null;
  /** their cap of charged checks per UTC day; null: none */
  checks_per_day: number | null;
  /** their cap per calendar month (UTC); null: none */
  checks_per_month: number | null;
  charged_today: number;
  charged_this_month: number;
  /** in the range */
  charged: number;
  /** every day of the range, oldest first */
  days: { day: string; charged: number }[];
}

export interface UsageReport {
  success: true;
  from: string;
  to: string;
  data: UsageRow[];
  /** with `by: 'member'`: the charged checks split by the person they counted against */
  members?: MemberUsage[];
}

interface EventBase {
  id: string;
  created_at: string;
  sandbox: boolean;
}

export interface QuotaWarningEvent extends EventBase {
  type: 'quota.warning';
  data: {
    remaining: number;
    credits: number;
    free_remaining_today: number;
    warning_below: number;
    /** a publishable key past four fifths of its daily cap of charged checks (once a UTC day per key) */
    publishable_key?: { id: string; name: string; checks_today: number; checks_per_day: number };
  };
}

export interface QuotaExceededEvent extends EventBase {
  type: 'quota.exceeded';
  data: {
    required: number;
    credits: number;
    free_remaining_today: number;
    refused_at: string;
    /** set when a monitor's run was skipped for want of credits */
    monitor_id?: string;
    list_id?: string;
  };
}
