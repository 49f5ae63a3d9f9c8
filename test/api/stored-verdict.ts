import { verificationRow } from '@/lib/results/rows';

/** A deliverable verdict for `email`, as a test stores it through `verificationRow` without verifying. */
export function storedVerdict(email: string) {
  return {
    email,
    normalized_email: email,
    valid: true,
    deliverable: true,
    status: 'deliverable',
    risk_level: 'low',
    reason: 'accepted_email',
    sub_reason: null,
    score: 95,
    confidence: 90,
    provider: 'example.com',
    mailbox_provider: null,
    disposable: false,
    role: false,
    free: false,
    catch_all: false,
    did_you_mean: null,
    details: {},
    evidence: [],
  } as unknown as Parameters<typeof verificationRow>[0];
}

/** A job's result row for `verdict`, as a chunk's run stores it (lib/jobs/worker/chunk-run.ts): from a bulk list, not cached, stored now; sandbox unless told. */
export function jobResultRow(
  verdict: Parameters<typeof verificationRow>[0],
  of: { userId: string; jobId: string | null; idx: number | null; sandbox?: boolean },
): unknown[] {
  return verificationRow(verdict, { sandbox: true, ...of, source: 'bulk', cached: false, at: Date.now() });
}
