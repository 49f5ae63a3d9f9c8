import { readRejection, type Parties } from './rejection';
import { REJECTION_RULES, type Subject } from './rejection-rules';
import type { ProbeStage, SmtpReply } from './smtp-session';
import type { SubReason } from './vocabulary';

/**
 * What one SMTP reply means for the address:
 * - accepted: the server takes mail for it
 * - rejected: the mailbox or its domain does not exist or cannot receive mail (permanent)
 * - full: the mailbox exists but is over quota (RFC 3463 X.2.2): risky, never undeliverable
 * - transient: ask again later (greylisting, postscreen's first connection, a mailbox or a sender
 *   over a rate)
 * - backoff: the server wants fewer connections from us; leave the whole domain alone a while
 * - blocked: the server refuses us, the message or itself (sender, IP, policy, TLS), which says
 *   nothing about the mailbox
 * - unclear: a rejection whose words say nothing (or contradict its code): only the made-up
 *   address's reply can tell (control.ts)
 */
export type ReplyMeaning = 'accepted' | 'rejected' | 'full' | 'transient' | 'backoff' | 'blocked' | 'unclear';

/** A reply's meaning and, where the meaning alone would mislead, the verdict's sub-reason. */
export interface Reading {
  meaning: ReplyMeaning;
  subReason: SubReason | null;
}

const TOO_MANY = /too many (connections|concurrent)|rate limit|try again later.*connections|connection limit/i;
const { full: FULL, mailbox_rate: MAILBOX_RATE } = REJECTION_RULES;
// "452 4.5.3 Too many recipients" (RFC 5321 4.5.3.1.10, Postfix smtpd_recipient_limit),
// "452 Too many recipients received this hour" is a throttle, not a per-transaction limit.
const TOO_MANY_RECIPIENTS = /too many recipients(?! received this)/i;

const read = (meaning: ReplyMeaning, subReason: SubReason | null = null): Reading => ({ meaning, subReason });

/** Rules go by code and stage first, then by what a rejection is about (rejection.ts). */
export function readReply(reply: SmtpReply, stage: ProbeStage, parties: Parties = {}): Reading {
  const { code, enhanced, message } = reply;
  if (code >= 200 && code < 300) return read('accepted');
  const [, subject, detail] = enhanced ? enhanced.split('.').map(Number) : [];

  // "421 4.7.0 Too many connections" / "421 4.7.0 [x.x.x.x] Our system has detected an unusual
  // rate of unsolicited mail" (Gmail) and Postfix's "421 4.3.2 Service shutting down": the
  // service is closing the channel at any stage, so the domain needs a rest.
  if (code === 421) return read('backoff');
  if (code >= 400 && code < 500) {
    // "451 4.7.1 Too many connections from your IP, try again later" (Yahoo-style throttling)
    if (TOO_MANY.test(message)) return read('backoff');
    // "452 4.2.2 The email account that you tried to reach is over quota." (Gmail)
    if (stage === 'rcpt' && ((subject === 2 && detail === 2) || FULL.test(message))) return read('full');
    // Gmail's "452-4.2.1 The user you are trying to contact is receiving mail at a rate that ..."
    if (stage === 'rcpt' && MAILBOX_RATE.test(message)) return read('transient', 'rate_limited');
    // a deferral that names us says so: "450 4.7.1 Client host rejected: cannot find your
    // hostname, [x]" (Postfix reject_unknown_client), "451 4.7.26 Unauthenticated email from x is
    // not accepted due to domain's DMARC policy" (Gmail), "452 Too many recipients received this hour"
    const deferral = readRejection(reply, parties);
    if (deferral.subject === 'sender' || deferral.subject === 'host' || deferral.subject === 'auth') return read('transient', deferral.subReason);
    if (deferral.subject === 'rate') return read('transient', 'rate_limited');
    // "450 4.2.0 <bob@grey.test>: Recipient address rejected: Greylisted, please try again"
    // (postgrey), "450 4.3.2 Service currently unavailable" (postscreen's first connection),
    // "451 4.3.0 Temporary lookup failure": all come back later (verdict.ts names which).
    return read('transient');
  }
  if (code < 500 || code > 599) return read('blocked'); // not an SMTP reply at all: we learnt nothing

  const rejection = readRejection(reply, parties);
  // A 5xx before RCPT is about us (our HELO name, sender or IP), never about the mailbox:
  // "554 5.7.1 Service unavailable; Client host [x] blocked using zen.spamhaus.org".
  if (stage !== 'rcpt') return aboutUs(rejection.subject, rejection.subReason);
  switch (rejection.subject) {
    case 'mailbox':
    case 'domain':
      return read('rejected');
    case 'full':
      return read('full');
    case 'unclear':
      return read('unclear', 'unclear_rejection');
    default:
      return aboutUs(rejection.subject, rejection.subReason);
  }
}

/** A rejection about us, the message or the server: blocked, or asked again when it is a rate. */
function aboutUs(subject: Subject, subReason: SubReason | null): Reading {
  if (subject === 'rate' || subject === 'mailbox_rate') return read('transient', 'rate_limited');
  const ours = subject !== 'mailbox' && subject !== 'domain' && subject !== 'full' && subject !== 'unclear';
  return read('blocked', ours ? subReason : 'blocked_by_policy');
}

/** The meaning alone (the catch-all question needs no more). */
export function classifyReply(reply: SmtpReply, stage: ProbeStage): ReplyMeaning {
  return readReply(reply, stage).meaning;
}

/**
 * "452 4.5.3 Too many recipients" to the second RCPT: the server takes one recipient per
 * transaction (Postfix smtpd_recipient_limit=1, some Exchange connectors), which says nothing
 * about the second address; it is asked again in a transaction of its own.
 */
export function isTooManyRecipients(reply: SmtpReply): boolean {
  return (
    (reply.code === 452 || reply.code === 552 || reply.enhanced?.endsWith('.5.3') === true) &&
    (reply.enhanced?.endsWith('.5.3') === true || TOO_MANY_RECIPIENTS.test(reply.message))
  );
}
