// Webhooks, deliveries, the account and the error body, as the OpenAPI document states them (types.ts has the rest).
import type { EventType, JobSummary, WebhookEvent } from './types.ts';
import type { QuotaExceededEvent, QuotaWarningEvent } from './rules-types.ts';
import type { ListExpiringEvent } from './data-types.ts';
import type { ListChangedEvent } from './monitor-types.ts';

export interface Webhook {
  id: string;
  url: string;
  events: WebhookEvent[];
  description: string;
  created_at: string;
  disabled: boolean;
}

export interface WebhookCreated extends Webhook {
  /** the signing secret (`whsec_…`), shown once */
  secret: string;
}

export interface WebhookInput {
  url: string;
  events?: WebhookEvent[];
  description?: string;
}

export interface Delivery {
  id: string;
  event_type: EventType;
  event_id: string;
  state: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  created_at: string;
  attempt_log: { attempt: number; status: number | null; error: string | null; duration_ms: number; at: string }[];
}

export interface DeliverySent {
  success: true;
  event_id?: string;
  delivery_id: string;
  state: Delivery['state'];
  last_status: number | null;
}

export interface Account {
  email: string;
  plan: string;
  free_remaining_today: number;
  used_today: number;
  credits: number;
}

interface EventBase {
  /** also `webhook-id`: the same on every retry */
  id: string;
  created_at: string;
  sandbox: boolean;
}

export interface BulkCompletedEvent extends EventBase {
  type: 'bulk.completed';
  data: { job_id: string; status: 'completed'; total_emails: number; summary: JobSummary; download_url: string; completed_at: string };
}

export interface BulkFailedEvent extends EventBase {
  type: 'bulk.failed';
  data: { job_id: string; status: 'failed'; total_emails: number; summary: JobSummary; error: string; failed_at: string };
}

export interface WebhookTestEvent extends EventBase {
  type: 'webhook.test';
  data: { message: string };
}

export type WebhookPayload =
  | BulkCompletedEvent
  | BulkFailedEvent
  | QuotaWarningEvent
  | QuotaExceededEvent
  | ListExpiringEvent
  | ListChangedEvent
  | WebhookTestEvent;

export interface ErrorBody {
  error: string;
  message: string;
  param?: string;
  /** `insufficient_scope`: the scope the operation needs */
  scope?: Scope;
  /** `insufficient_role`: the role the operation needs */
  role?: Role;
  limit?: number;
  retry_after?: number;
  required?: number;
  free_remaining_today?: number;
  credits?: number;
}

/** A person's role in an organisation, lowest first (docs/teams.md); a key acts with one too. */
export type Role = 'viewer' | 'member' | 'admin' | 'owner';

/** What a key may call (docs/integrations.md); a key made without a list holds every scope. */
export type Scope = 'verify' | 'jobs' | 'history' | 'webhooks' | 'rules' | 'keys' | 'account';

export interface KeyRateLimits {
  per_visitor_per_minute: number;
  per_key_per_minute: number;
  /** charged checks a UTC day; past it 429 until midnight UTC */
  checks_per_day: number;
}

/** A publishable key's limits as listed: its own or the defaults, and today's charged checks (UTC). */
export interface KeyLimitsInForce {
  per_visitor_per_minute: number;
  per_key_per_minute: number;
  checks_per_day: number;
  checks_today: number;
}

export interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  /** `secret` for servers, `publishable` for web pages (single checks from `allowed_origins` only) */
  type: 'secret' | 'publishable';
  scopes: Scope[];
  allowed_ips: string[] | null;
  allowed_origins: string[] | null;
  expires_at: string | null;
  /** publishable keys: the limits in force, and today's charged checks (UTC) */
  rate_limits: KeyLimitsInForce | null;
  /** the highest role the key acts with */
  role: Role;
  /** who made it; `member: false` once they left the organisation (the key stays its) */
  created_by: { user_id: string; email: string; member: boolean } | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** The new key itself is in `key`, shown this once. */
export interface ApiKeyCreated extends ApiKey {
  key: string;
}

/** POST /v1/keys. */
export interface KeyInput {
  name?: string;
  type?: 'secret' | 'publishable';
  scopes?: Scope[];
  /** addresses or CIDR blocks, IPv4 or IPv6 */
  allowed_ips?: string[];
  /** publishable keys: `https://shop.example` */
  allowed_origins?: string[];
  /** ISO 8601 */
  expires_at?: string;
  rate_limits?: Partial<KeyRateLimits>;
  /** at most yours; default yours */
  role?: Role;
}

/** PATCH /v1/keys/{id}: only the fields given change; `null` clears a restriction. */
export interface KeyUpdateInput {
  name?: string;
  scopes?: Scope[] | null;
  allowed_ips?: string[] | null;
  allowed_origins?: string[];
  expires_at?: string | null;
  /** the limits given change, the others stay; a limit `null` gives its default back, `null` every default */
  rate_limits?: { [limit in keyof KeyRateLimits]?: number | null } | null;
  role?: Role;
}

/** POST /v1/account/password and DELETE /v1/account/sessions (dashboard sessions only). */
export interface AccountMessage {
  success: true;
  message: string;
}

/** POST /v1/account/password: every other session is signed out. */
export interface PasswordChangeInput {
  current_password: string;
  new_password: string;
}

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

/** GET/PATCH /v1/organisation: the organisation's name and single sign-on settings (docs/security.md, "Single sign-on"). */
export interface OrganisationSettings {
  success: true;
  id: string;
  name: string;
  /** sessions of people without two-factor are refused in the organisation (docs/security.md) */
  require_two_factor: boolean;
  /** whether the installation has single sign-on configured: the settings below take effect only then */
  sso_available: boolean;
  /** the email domain claimed for single sign-on; null: none */
  sso_domain: string | null;
  /** the role people joining by the claimed domain get */
  sso_default_role: 'admin' | 'member' | 'viewer';
  /** false: only sessions signed in through single sign-on act for the organisation */
  password_sign_in: boolean;
}

/** PATCH /v1/organisation (owners): only the fields sent change; at least one. */
export interface OrganisationUpdateInput {
  name?: string | undefined;
  /** you need two-factor on yourself to turn it on */
  require_two_factor?: boolean | undefined;
  /** your own email's domain; null unclaims */
  sso_domain?: string | null | undefined;
  sso_default_role?: 'admin' | 'member' | 'viewer' | undefined;
  /** false needs a session signed in through single sign-on */
  password_sign_in?: boolean | undefined;
}
