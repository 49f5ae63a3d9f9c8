import type { ProbeStage, SmtpReply } from './smtp';

/**
 * What one SMTP reply means for the address:
 * - accepted: the server takes mail for it
 * - rejected: the mailbox does not exist or cannot receive mail (permanent)
 * - transient: ask again later (greylisting, mailbox busy)
 * - backoff: the server wants fewer connections from us; leave the whole domain alone a while
 * - blocked: the server refuses us (reputation, policy), which says nothing about the mailbox
 */
export type ReplyMeaning = 'accepted' | 'rejected' | 'transient' | 'backoff' | 'blocked';

const TOO_MANY = /too many (connections|concurrent)|rate limit|try again later.*connections|connection limit/i;
const NO_MAILBOX = /does not exist|user unknown|no such (user|mailbox|recipient)|unknown (user|recipient)|recipient not found|mailbox unavailable|mailbox not found|invalid (mailbox|recipient)|address rejected|not a valid mailbox|unrouteable address/i;
const POLICY = /spamhaus|blocklist|blacklist|block list|\bblocked\b|\bRBL\b|reputation|policy|not allowed|access denied|relay/i;

/** Rules go by code first, then enhanced status code (RFC 3463), then text. */
export function classifyReply(reply: SmtpReply, stage: ProbeStage): ReplyMeaning {
  const { code, enhanced, message } = reply;
  if (code >= 200 && code < 300) return 'accepted';

  // "421 4.7.0 Too many connections" / "421 4.7.0 [x.x.x.x] Our system has detected an unusual
  // rate of unsolicited mail" (Gmail) and Postfix's "421 4.3.2 Service shutting down": the
  // service is closing the channel at any stage, so the domain needs a rest.
  if (code === 421) return 'backoff';
  if (code >= 400 && code < 500) {
    // "451 4.7.1 Too many connections from your IP, try again later" (Yahoo-style throttling)
    if (TOO_MANY.test(message)) return 'backoff';
    // "450 4.2.0 <bob@grey.test>: Recipient address rejected: Greylisted, please try again"
    // (postgrey), "452 4.2.2 The email account that you tried to reach is over quota" (Gmail),
    // "451 4.3.0 Temporary lookup failure": all come back later.
    return 'transient';
  }
  if (code < 500 || code > 599) return 'blocked'; // not an SMTP reply at all: we learnt nothing

  // A 5xx before RCPT is about us (our HELO name, sender or IP), never about the mailbox:
  // "554 5.7.1 Service unavailable; Client host [x] blocked using zen.spamhaus.org".
  if (stage !== 'rcpt') return 'blocked';

  if (enhanced) {
    const [, subject, detail] = enhanced.split('.').map(Number);
    // "550-5.1.1 The email account that you tried to reach does not exist." (Gmail),
    // "550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient not found by SMTP address lookup"
    // (Microsoft 365), "550 5.1.1 <bob@example.test>: Recipient address rejected: User unknown
    // in virtual mailbox table" (Postfix)
    if (subject === 1 && [0, 1, 2, 3, 6, 10].includes(detail)) return 'rejected';
    // "550 5.2.1 The email account that you tried to reach is disabled." (Gmail),
    // "552 5.2.2 Mailbox full": the mailbox exists but mail to it bounces
    if (subject === 2) return 'rejected';
    // "550 5.7.1 Service unavailable, Client host [x] blocked using Spamhaus" (Microsoft),
    // "550 5.7.606 Access denied, banned sending IP" (Outlook): about us, not the mailbox
    if (subject === 7) return 'blocked';
    // "550 5.4.1 Recipient address rejected: Access denied" (Exchange Online directory-based
    // edge blocking) is, in practice, how Microsoft says the recipient does not exist.
    if (subject === 4 && detail === 1) return 'rejected';
  }
  // "550 5.5.0 Requested action not taken: mailbox unavailable" (Outlook.com),
  // "550 Requested action not taken: mailbox unavailable" (servers without enhanced codes),
  // "550 No such user here" (Exim, qmail)
  if (NO_MAILBOX.test(message)) return 'rejected';
  // "550 Your IP is on our blocklist" / "554 Relay access denied"
  if (POLICY.test(message)) return 'blocked';
  // "550 <bob@example.org>... User unknown" predates enhanced codes; a bare 550/551/553 to RCPT
  // is how such servers say the recipient is not there.
  if (code === 550 || code === 551 || code === 553) return 'rejected';
  // "554 Transaction failed", "530 Authentication required": nothing about the mailbox
  return 'blocked';
}
