/**
 * The vocabulary of a verdict, declared once (docs/verdicts.md): the verifier's types,
 * the API's enums (lib/api/responses.ts, lib/api/schemas.ts) are derived from these arrays, and the
 * SDK's types (lib/sdk/src/types.ts, which the dashboard uses) mirror them, checked by
 * lib/sdk/test/types.test.ts. Plain data, safe to import anywhere.
 */

export const RISK_LEVELS = ['low', 'medium', 'high', 'unknown'] as const;
export type RiskLevel = (typeof RISK_LEVELS)[number];

export const REASONS = [
  'accepted_email',
  'rejected_email',
  'invalid_email',
  'invalid_domain',
  'no_mx',
  'accept_all',
  'disposable_email',
  'role_account',
  'low_quality',
  'timeout',
  'no_connect',
  'unavailable_smtp',
  'unexpected_error',
  'allowlisted', // an allow rule of the account decided, before any probe (lib/verifier/rule-match.ts)
  'blocklisted', // a block rule of the account decided, before any probe
] as const;
export type Reason = (typeof REASONS)[number];

/**
 * The finer reason beside `reason`: every `unknown` has one, and so do verdicts whose reason alone
 * would mislead (a dangling MX, a full mailbox, a gateway).
 */
export const SUB_REASONS = [
  'greylisted', // a 4xx to RCPT: asked again later within a job
  'try_again_later', // a 4xx before RCPT: postscreen's first connection, a busy server
  'throttled', // 421 / too many connections: the domain is left alone a while
  'timeout',
  'no_connect',
  'connection_dropped',
  'protocol_error', // the server broke SMTP or a limit of SMTP_LIMITS
  'tls_required',
  'tls_failed',
  'blocked_by_policy',
  'ip_blocklisted',
  'smtputf8_unsupported',
  'provider_unverifiable', // the provider or gateway accepts every recipient at its edge
  'catch_all_unknown', // accepted, but the made-up address got no clear answer
  'dns_failure', // SERVFAIL, time-out, refused: never "invalid"
  'resolver_unreliable', // our resolver denies a name that must exist: its NXDOMAIN is worthless
  'mx_unresolvable', // every MX host name is NXDOMAIN or has no address: mail cannot be delivered
  'mailbox_full',
  'private_address', // the MX resolves to a private address (EV_ALLOW_PRIVATE_NETWORKS)
  'verifier_unavailable', // our side (its database, the politeness store) failed every time it was asked: nothing learnt
  // a rejection about someone other than the recipient (lib/verifier/rejection.ts, docs/verdicts.md)
  'sender_rejected', // our envelope sender, its domain, SPF/DKIM/DMARC
  'host_rejected', // our connecting host or HELO name, no list named
  'reverse_dns', // our IP's reverse DNS (PTR) is missing or does not match
  'rate_limited', // the mailbox, or we, are over a rate: asked again later within a job
  'auth_required', // the server wants SMTP AUTH: it is not a public MX for the address
  'message_rejected', // the message (content, size, headers), not the address
  'server_error', // the server's own trouble
  'unclear_rejection', // a rejection whose words say nothing about whom, or contradict its code
  'rejection_differs', // refused otherwise than the made-up address: probably not "no such user"
  'postmaster_refused', // postmaster@ was refused as the address was (RFC 5321 4.5.1): the refusal is about us
  'unexpected_error',
] as const;
export type SubReason = (typeof SUB_REASONS)[number];

export const VERDICT_STATUSES = ['deliverable', 'undeliverable', 'risky', 'catch-all', 'disposable', 'role-based', 'unknown'] as const;
export type VerdictStatus = (typeof VERDICT_STATUSES)[number];

/** The four buckets of the job summary, the status filter, the download filter and the dashboard. */
export const BUCKETS = ['deliverable', 'undeliverable', 'risky', 'unknown'] as const;
export type Bucket = (typeof BUCKETS)[number];

/** Which bucket a status falls in: anything not clearly good, bad or unknown is risky (`bucketCondition` in lib/results/rows.ts is the SQL of this). */
export function bucketOf(status: string): Bucket {
  if (status === 'deliverable' || status === 'undeliverable' || status === 'unknown') return status;
  return 'risky';
}
