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
}

/** One verified address: everything the single, /v1/verify, bulk and CSV shapes are cut from. */
export interface Verdict {
  email: string;
  valid: boolean;
  deliverable: boolean;
  risk_level: RiskLevel;
  reason: Reason;
  confidence: number;
  status: VerdictStatus;
  score: number;
  provider: string;
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
