import type { Politeness } from '../verifier/politeness';
import type { Verifier } from '../verifier/types';
import type { ConversationEvent } from '../verifier/verify';
import { countVerdict, metrics, providerLabel } from './registry';

/** The verifier's outside world, counted: politeness waits and holds, conversations, verdicts. */

export function observedPoliteness(politeness: Politeness, egress: string): Politeness {
  const { politenessWait, politenessHolds } = metrics();
  return {
    async acquire(target, signal) {
      const waited = politenessWait.startTimer({ provider: providerLabel(target.key), egress });
      const permit = await politeness.acquire(target, signal);
      waited();
      return permit;
    },
    hold(subject, ms) {
      politenessHolds.inc({ kind: subject.startsWith('grey:') ? 'greylist' : 'backoff', egress });
      return politeness.hold(subject, ms);
    },
    heldFor: (subjects) => politeness.heldFor(subjects),
  };
}

export const countConversation = (egress: string) => (event: ConversationEvent) =>
  metrics().smtpReplies.inc({ class: event.outcome, provider: providerLabel(event.provider), egress });

export function countedVerifier(verifier: Verifier, mode: 'sandbox' | 'production'): Verifier {
  return {
    async verify(email, options) {
      const outcome = await verifier.verify(email, options);
      countVerdict(outcome.retryAfterMs === undefined ? outcome.verdict.status : 'retry_later', mode, outcome.verdict.mailbox_provider);
      return outcome;
    },
  };
}
