import type { verificationRow } from '@/lib/results/rows';

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
