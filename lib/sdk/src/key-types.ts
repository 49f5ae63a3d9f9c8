// API keys and what they act with: roles, scopes, a publishable key's limits (/v1/keys…), as the
// OpenAPI document states them; lib/sdk/test/types.test.ts keeps them equal to the server's schemas.

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
