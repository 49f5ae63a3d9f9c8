/** The vocabulary of a verdict (README, "Verdict vocabulary"; the API's enums in lib/api/responses.ts). */
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
  | 'unexpected_error';

/**
 * The finer reason beside `reason` (README "Verdict vocabulary"): every `unknown` has one, and so
 * do verdicts whose reason alone would mislead (a dangling MX, a full mailbox, a gateway).
 */
export type SubReason =
  | 'greylisted' // a 4xx to RCPT: asked again later within a job
  | 'try_again_later' // a 4xx before RCPT: postscreen's first connection, a busy server
  | 'throttled' // 421 / too many connections: the domain is left alone a while
  | 'timeout'
  | 'no_connect'
  | 'connection_dropped'
  | 'protocol_error' // the server broke SMTP or a limit of SMTP_LIMITS
  | 'tls_required'
  | 'tls_failed'
  | 'blocked_by_policy'
  | 'ip_blocklisted'
  | 'smtputf8_unsupported'
  | 'provider_unverifiable' // the provider or gateway accepts every recipient at its edge
  | 'catch_all_unknown' // accepted, but the made-up address got no clear answer
  | 'dns_failure' // SERVFAIL, time-out, refused: never "invalid"
  | 'resolver_unreliable' // our resolver denies a name that must exist: its NXDOMAIN is worthless
  | 'mx_unresolvable' // every MX host name is NXDOMAIN or has no address: mail cannot be delivered
  | 'mailbox_full'
  | 'private_address' // the MX resolves to a private address (EV_ALLOW_PRIVATE_NETWORKS)
  | 'unexpected_error';

export type VerdictStatus =
  | 'deliverable'
  | 'undeliverable'
  | 'risky'
  | 'catch-all'
  | 'disposable'
  | 'role-based'
  | 'unknown';

export interface VerdictDetails {
  syntax_valid: boolean;
  domain_exists: boolean;
  mx_record: boolean;
  smtp_valid: boolean;
}

/** What the SMTP conversation showed; null fields were not reached. */
export interface Evidence {
  mx_host: string | null;
  smtp_code: number | null;
  smtp_enhanced_code: string | null;
  smtp_message: string | null;
  /** why the conversation ended without an answer ("timeout", "protocol: a reply of more than 100 lines") */
  smtp_failure: string | null;
  attempts: number;
  /** the conversation was upgraded with STARTTLS */
  tls: boolean;
  /** what DNS said when it decided the verdict ("mx.example.test: NXDOMAIN", "resolver denies gmail.com") */
  dns_failure: string | null;
}

/** One verified address: everything the single, /v1/verify, bulk and CSV shapes are cut from. */
export interface Verdict {
  email: string;
  /** the address in one spelling per mailbox (syntax.ts `normalized`); null when it is not an address */
  normalized_email: string | null;
  valid: boolean;
  deliverable: boolean;
  risk_level: RiskLevel;
  reason: Reason;
  sub_reason: SubReason | null;
  confidence: number;
  status: VerdictStatus;
  score: number;
  /** the address's domain, as the spec defines `provider` */
  provider: string;
  /** who runs the mailboxes, from the MX hosts ("google", "microsoft", "mimecast"); null: not known */
  mailbox_provider: string | null;
  details: VerdictDetails;
  disposable: boolean;
  role: boolean;
  free: boolean;
  catch_all: boolean;
  did_you_mean: string | null;
  evidence: Evidence | null;
}

/**
 * A verifier: sandbox or real. A transient outcome (greylisting, 4xx, domain back-off) carries
 * `retryAfterMs` so the job worker can re-queue the address later without holding a slot; the
 * verdict beside it is what is known now (an `unknown` one), used when no retry is left.
 */
export interface VerifyOutcome {
  verdict: Verdict;
  retryAfterMs?: number;
}

export interface Verifier {
  verify(email: string, options?: { signal?: AbortSignal }): Promise<VerifyOutcome>;
}
