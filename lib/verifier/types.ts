import type { RuleBook } from './rule-book';
import type { Reason, RiskLevel, SubReason, VerdictStatus } from './vocabulary';

/** The vocabulary of a verdict is declared once, in vocabulary.ts. */
export type { Reason, RiskLevel, SubReason, VerdictStatus } from './vocabulary';

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
  /** the reply to the made-up address of the same domain, when one was asked: what a rejection is weighed against */
  control_code: number | null;
  control_enhanced_code: string | null;
  control_message: string | null;
  /** postmaster@'s reply, asked when the address was refused (RFC 5321 4.5.1, docs/verdicts.md) */
  postmaster_code: number | null;
  postmaster_message: string | null;
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
  /** the address's domain (docs/verdicts.md) */
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
  /** the allow or block rule that decided it (reason `allowlisted` / `blocklisted`; lib/verifier/rule-match.ts) */
  rule_id?: string;
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

export interface VerifyOptions {
  signal?: AbortSignal;
  /** the caller's allow and block rules, applied before any probe (lib/verifier/rule-match.ts) */
  rules?: RuleBook;
}

export interface Verifier {
  verify(email: string, options?: VerifyOptions): Promise<VerifyOutcome>;
}
