import type { Verdict } from '../verifier/types';

/** The response of POST /v1/verify/single: the original interface's fields first, then the extra facts (schema: lib/api/responses.ts). */
export function singleResult(verdict: Verdict, responseTimeMs: number, cached: boolean, sandbox: boolean) {
  return {
    email: verdict.email,
    normalized_email: verdict.normalized_email,
    valid: verdict.valid,
    deliverable: verdict.deliverable,
    risk_level: verdict.risk_level,
    provider: verdict.provider,
    mailbox_provider: verdict.mailbox_provider,
    responseTime: responseTimeMs,
    confidence: verdict.confidence,
    details: verdict.details,
    reason: verdict.reason,
    sub_reason: verdict.sub_reason,
    cached,
    status: verdict.status,
    score: verdict.score,
    disposable: verdict.disposable,
    role: verdict.role,
    free: verdict.free,
    catch_all: verdict.catch_all,
    did_you_mean: verdict.did_you_mean,
    evidence: verdict.evidence,
    rule_id: verdict.rule_id ?? null,
    sandbox,
  };
}

/** The response of POST /v1/verify (the SDK's shape: status, score, isDisposable). */
export function verifyResult(verdict: Verdict, responseTimeMs: number, cached: boolean, sandbox: boolean) {
  const { email, status, score, ...rest } = singleResult(verdict, responseTimeMs, cached, sandbox);
  return { email, status, score, isDisposable: verdict.disposable, ...rest };
}

/** A publishable key's answer goes to a web page: the SMTP evidence (the mail server's own words) stays out. */
export function withoutEvidenceFor<T extends { evidence: unknown }>(caller: { key: { type: string } | null }, result: T): T {
  return caller.key?.type === 'publishable' ? { ...result, evidence: null } : result;
}
