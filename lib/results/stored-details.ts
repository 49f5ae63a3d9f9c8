import type { Verdict } from '../verifier/types';

/**
 * The `details` column of `verifications`, both ways: the verdict's details, and what of evidence,
 * normalized_email and rule_id says something. No evidence (every sandbox verdict, most production
 * ones without SMTP) is left out, and so is a normalized_email the same as the address (a lower-case
 * ASCII address): `readStoredDetails` puts both back. A sandbox row of the bench's addresses stores
 * 77 bytes of details where it stored 140, which the million-row job's INSERT pays for
 * (docs/benchmarks.md, "Less work a stored result").
 */
export function storedDetails(verdict: Verdict): string {
  const { details } = verdict;
  if (verdict.evidence === null && verdict.normalized_email === verdict.email && verdict.rule_id === undefined && isPlainDetails(details))
    // the common case, one of 16 strings: a million-row job's rows made no object and no JSON each
    return PLAIN_DETAILS[+details.syntax_valid * 8 + +details.domain_exists * 4 + +details.mx_record * 2 + +details.smtp_valid]!;
  const stored: Record<string, unknown> = { ...details };
  if (verdict.evidence !== null) stored.evidence = verdict.evidence;
  if (verdict.normalized_email !== verdict.email) stored.normalized_email = verdict.normalized_email;
  stored.rule_id = verdict.rule_id;
  return JSON.stringify(stored);
}

/**
 * A stored `details` read back: the verdict's details, its evidence (null when none was stored), and
 * its normalized_email, or undefined when the row did not store it: the same as its address, or a
 * row from before the field (the caller normalizes the address again). Rows stored before the
 * columns sub_reason and mailbox_provider also hold those in details: left out of it.
 */
export function readStoredDetails(json: string): Pick<Verdict, 'details' | 'evidence'> & { normalized_email: string | null | undefined } {
  const {
    evidence = null,
    normalized_email,
    sub_reason: _sub,
    mailbox_provider: _mailbox,
    rule_id: _ruleId,
    ...details
  } = JSON.parse(json) as Verdict['details'] & Partial<Pick<Verdict, 'sub_reason' | 'mailbox_provider' | 'normalized_email' | 'rule_id' | 'evidence'>>;
  return { details, evidence, normalized_email };
}

/** VerdictDetails' fields, in the order a verdict's literal has them. */
const DETAIL_FIELDS = ['syntax_valid', 'domain_exists', 'mx_record', 'smtp_valid'] as const satisfies readonly (keyof Verdict['details'])[];

/** `details` of those four booleans and nothing else */
function isPlainDetails(details: Verdict['details']): boolean {
  if (Object.keys(details).length !== DETAIL_FIELDS.length) return false;
  for (const field of DETAIL_FIELDS) if (typeof details[field] !== 'boolean') return false;
  return true;
}

/** JSON.stringify of each of the 16 plain details, indexed by their bits (syntax_valid the highest) */
const PLAIN_DETAILS = Array.from({ length: 16 }, (_, bits) =>
  JSON.stringify(Object.fromEntries(DETAIL_FIELDS.map((field, i) => [field, (bits & (8 >> i)) !== 0]))),
);
