import { matchRule, ruledVerdict } from './rule-match';
import { suggestCorrection } from './suggest';
import { checkSyntax } from './syntax';
import type { Reason, RiskLevel, Verdict, VerdictStatus, Verifier } from './types';

/**
 * The sandbox engine: deterministic verdicts from the address pattern (the
 * "Sandbox mode" table of docs/api.md), no network, no clock.
 */

export type SandboxTrigger = 'auth' | 'ratelimit' | 'timeout' | 'server';

/** Error triggers: only meaningful for a single address (a larger batch judges them as "anything else"). */
export function sandboxTrigger(email: string): SandboxTrigger | null {
  const local = email.trim().toLowerCase();
  for (const trigger of ['auth', 'ratelimit', 'timeout', 'server'] as const) {
    if (local.startsWith(`error-${trigger}`)) return trigger;
  }
  return null;
}

interface Outcome {
  valid: boolean;
  deliverable: boolean;
  risk_level: RiskLevel;
  reason: Reason;
  confidence: number;
  status: VerdictStatus;
  score: number;
  disposable?: boolean;
  role?: boolean;
  catch_all?: boolean;
  smtp_valid?: boolean;
}

const PREFIXES: [string, Outcome][] = [
  // `invalid` must be matched before `valid`, which it contains.
  [
    'invalid',
    { valid: false, deliverable: false, risk_level: 'high', reason: 'rejected_email', confidence: 95, status: 'undeliverable', score: 0, smtp_valid: false },
  ],
  ['valid', { valid: true, deliverable: true, risk_level: 'low', reason: 'accepted_email', confidence: 95, status: 'deliverable', score: 95 }],
  ['risky', { valid: true, deliverable: false, risk_level: 'medium', reason: 'low_quality', confidence: 60, status: 'risky', score: 50 }],
  [
    'catchall',
    { valid: true, deliverable: false, risk_level: 'medium', reason: 'accept_all', confidence: 50, status: 'catch-all', score: 60, catch_all: true },
  ],
  [
    'disposable',
    { valid: true, deliverable: false, risk_level: 'high', reason: 'disposable_email', confidence: 90, status: 'risky', score: 20, disposable: true },
  ],
  ['role', { valid: true, deliverable: true, risk_level: 'medium', reason: 'role_account', confidence: 80, status: 'role-based', score: 70, role: true }],
];

/** FNV-1a: a stable 32-bit hash, the same on every machine and run. */
export function stableHash(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** Realistic mix for "anything else": mostly deliverable, every verdict represented. */
function hashedOutcome(hash: number): Outcome {
  const bucket = hash % 100;
  const jitter = (hash >>> 8) % 15;
  if (bucket < 58)
    return {
      valid: true,
      deliverable: true,
      risk_level: 'low',
      reason: 'accepted_email',
      confidence: 85 + (jitter % 11),
      status: 'deliverable',
      score: 85 + jitter,
    };
  if (bucket < 72)
    return {
      valid: false,
      deliverable: false,
      risk_level: 'high',
      reason: 'rejected_email',
      confidence: 80 + jitter,
      status: 'undeliverable',
      score: 0,
      smtp_valid: false,
    };
  if (bucket < 80)
    return { valid: true, deliverable: false, risk_level: 'medium', reason: 'low_quality', confidence: 55 + jitter, status: 'risky', score: 40 + jitter };
  if (bucket < 88)
    return {
      valid: true,
      deliverable: false,
      risk_level: 'medium',
      reason: 'accept_all',
      confidence: 50,
      status: 'catch-all',
      score: 55 + jitter,
      catch_all: true,
    };
  if (bucket < 92)
    return { valid: true, deliverable: true, risk_level: 'medium', reason: 'role_account', confidence: 80, status: 'role-based', score: 70, role: true };
  if (bucket < 95)
    return { valid: true, deliverable: false, risk_level: 'high', reason: 'disposable_email', confidence: 90, status: 'risky', score: 20, disposable: true };
  if (bucket < 98)
    return { valid: false, deliverable: false, risk_level: 'unknown', reason: 'timeout', confidence: 0, status: 'unknown', score: 30, smtp_valid: false };
  return {
    valid: false,
    deliverable: false,
    risk_level: 'high',
    reason: 'invalid_domain',
    confidence: 90,
    status: 'undeliverable',
    score: 0,
    smtp_valid: false,
  };
}

export function sandboxVerdict(email: string): Verdict {
  const syntax = checkSyntax(email);
  if (!syntax.ok) {
    const at = email.lastIndexOf('@');
    return {
      email,
      normalized_email: null,
      valid: false,
      deliverable: false,
      risk_level: 'high',
      reason: 'invalid_email',
      sub_reason: null,
      confidence: 99,
      status: 'undeliverable',
      score: 0,
      provider: at >= 0 ? email.slice(at + 1).toLowerCase() : '',
      mailbox_provider: null,
      details: { syntax_valid: false, domain_exists: false, mx_record: false, smtp_valid: false },
      disposable: false,
      role: false,
      free: false,
      catch_all: false,
      did_you_mean: null,
      evidence: null,
    };
  }
  const local = syntax.local.toLowerCase();
  const outcome = PREFIXES.find(([prefix]) => local.startsWith(prefix))?.[1] ?? hashedOutcome(stableHash(email.toLowerCase()));
  const domainExists = outcome.reason !== 'invalid_domain';
  return {
    email,
    normalized_email: syntax.normalized,
    valid: outcome.valid,
    deliverable: outcome.deliverable,
    risk_level: outcome.risk_level,
    reason: outcome.reason,
    sub_reason: outcome.status === 'unknown' ? 'timeout' : null,
    confidence: outcome.confidence,
    status: outcome.status,
    score: outcome.score,
    provider: syntax.domain.toLowerCase(),
    mailbox_provider: null,
    details: { syntax_valid: true, domain_exists: domainExists, mx_record: domainExists, smtp_valid: outcome.smtp_valid ?? true },
    disposable: outcome.disposable ?? false,
    role: outcome.role ?? false,
    free: false,
    catch_all: outcome.catch_all ?? false,
    // the production verifier's own suggestion (lib/verifier/verify.ts), so a form tested in sandbox offers the same fix
    did_you_mean: suggestCorrection(syntax.local, syntax.asciiDomain),
    evidence: null,
  };
}

/** No DNS here: an address's MX host is taken to be mx.<its domain>, so MX rules can be tried (docs/rules-and-usage.md). */
export const sandboxMxHost = (asciiDomain: string) => `mx.${asciiDomain}`;

export const sandboxVerifier: Verifier = {
  async verify(email, options) {
    const verdict = sandboxVerdict(email);
    const syntax = options?.rules?.size ? checkSyntax(email) : null;
    const rule = syntax?.ok ? matchRule(options!.rules!, syntax, [sandboxMxHost(syntax.asciiDomain)]) : null;
    return { verdict: rule ? ruledVerdict(verdict, rule) : verdict };
  },
};
