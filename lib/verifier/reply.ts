import type { ProbeStage, SmtpReply } from './smtp';

/**
 * What one SMTP reply means for the address:
 * - accepted: the server takes mail for it
 * - rejected: the mailbox does not exist or cannot receive mail (permanent)
 * - full: the mailbox exists but is over quota (RFC 3463 X.2.2): risky, never undeliverable
 * - transient: ask again later (greylisting, postscreen's first connection, mailbox busy)
 * - backoff: the server wants fewer connections from us; leave the whole domain alone a while
 * - blocked: the server refuses us (reputation, policy, TLS), which says nothing about the mailbox
 */
export type ReplyMeaning = 'accepted' | 'rejected' | 'full' | 'transient' | 'backoff' | 'blocked';

/** Why a server refused us, for the verdict's sub-reason; only asked of 'blocked' replies. */
export type BlockKind = 'ip_blocklisted' | 'tls_required' | 'blocked_by_policy';

const TOO_MANY = /too many (connections|concurrent)|rate limit|try again later.*connections|connection limit/i;
const NO_MAILBOX = new RegExp([
  'does not exist', 'user unknown', 'no such (user|mailbox|recipient)', 'unknown (user|recipient)',
  'recipient not found', 'mailbox unavailable', 'mailbox not found', 'invalid (mailbox|recipient)',
  'address rejected', 'not a valid mailbox', 'unrouteable address',
  // Yahoo / AOL (no enhanced code): "554 delivery error: dd This user doesn't have a yahoo.com
  // account (someone@yahoo.com) [-5] - mta1325.mail.gq1.yahoo.com" (hbattat/verifyEmail#30)
  "doesn't have a [\\w.-]+ account", 'delivery error: dd ',
  // Apple iCloud: "550 5.1.1 <x@icloud.com>: user does not exist" is caught above; Exim's
  // "550 Unrouteable address" too; qmail: "550 sorry, no mailbox here by that name. (#5.7.17)"
  'no mailbox here', 'mailbox is disabled', 'account (is )?disabled', 'account has been disabled',
].join('|'), 'i');
// Replies about us (our IP, our TLS, the sender), even when they also say "rejected": matched
// before NO_MAILBOX, because "Recipient address rejected: Access denied" style texts exist for both.
const ABOUT_US = /spamhaus|spamcop|barracudacentral|blocklist|blacklist|block list|\bRBL\b|\bDNSBL\b|reputation|client host|sender address rejected|helo command rejected|starttls|\bTLS\b|encrypt|throttl|rate limit|message not allowed/i;
const POLICY = /policy|\bblocked\b|not allowed|access denied|relay|spam/i;
const FULL = /over quota|quota exceeded|mailbox (is )?full|insufficient (system )?storage|exceeded (the )?storage/i;
// "452 4.5.3 Too many recipients" (RFC 5321 4.5.3.1.10, Postfix smtpd_recipient_limit),
// "452 Too many recipients received this hour" is a throttle, not a per-transaction limit.
const TOO_MANY_RECIPIENTS = /too many recipients(?! received this)/i;

/** Rules go by code first, then enhanced status code (RFC 3463), then text. */
export function classifyReply(reply: SmtpReply, stage: ProbeStage): ReplyMeaning {
  const { code, enhanced, message } = reply;
  if (code >= 200 && code < 300) return 'accepted';
  const [, subject, detail] = enhanced ? enhanced.split('.').map(Number) : [];

  // "421 4.7.0 Too many connections" / "421 4.7.0 [x.x.x.x] Our system has detected an unusual
  // rate of unsolicited mail" (Gmail) and Postfix's "421 4.3.2 Service shutting down": the
  // service is closing the channel at any stage, so the domain needs a rest.
  if (code === 421) return 'backoff';
  if (code >= 400 && code < 500) {
    // "451 4.7.1 Too many connections from your IP, try again later" (Yahoo-style throttling)
    if (TOO_MANY.test(message)) return 'backoff';
    // "452 4.2.2 The email account that you tried to reach is over quota." (Gmail)
    if (stage === 'rcpt' && (subject === 2 && detail === 2 || FULL.test(message))) return 'full';
    // "450 4.2.0 <bob@grey.test>: Recipient address rejected: Greylisted, please try again"
    // (postgrey), "450 4.3.2 Service currently unavailable" (postscreen's first connection),
    // "451 4.3.0 Temporary lookup failure": all come back later.
    return 'transient';
  }
  if (code < 500 || code > 599) return 'blocked'; // not an SMTP reply at all: we learnt nothing

  // A 5xx before RCPT is about us (our HELO name, sender or IP), never about the mailbox:
  // "554 5.7.1 Service unavailable; Client host [x] blocked using zen.spamhaus.org".
  if (stage !== 'rcpt') return 'blocked';

  if (enhanced) {
    // "550-5.1.1 The email account that you tried to reach does not exist." (Gmail),
    // "550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient not found by SMTP address lookup"
    // (Microsoft 365), "550 5.1.1 <bob@example.test>: Recipient address rejected: User unknown
    // in virtual mailbox table" (Postfix)
    if (subject === 1 && [0, 1, 2, 3, 6, 10].includes(detail)) return 'rejected';
    // "552 5.2.2 The email account that you tried to reach is over quota" (Gmail),
    // "552 5.2.2 Mailbox full": the mailbox exists, mail bounces until it is emptied
    if (subject === 2 && detail === 2) return 'full';
    // "550 5.2.1 The email account that you tried to reach is disabled." (Gmail)
    if (subject === 2) return 'rejected';
    // "550 5.7.1 Service unavailable, Client host [x] blocked using Spamhaus" (Microsoft),
    // "550 5.7.606 Access denied, banned sending IP" (Outlook), "530 5.7.0 Must issue a
    // STARTTLS command first" (Postfix smtpd_tls_security_level=encrypt): about us
    if (subject === 7) return 'blocked';
    // "550 5.4.1 Recipient address rejected: Access denied" (Exchange Online directory-based
    // edge blocking) is, in practice, how Microsoft says the recipient does not exist.
    if (subject === 4 && detail === 1) return 'rejected';
  }
  // "550 Your IP is on our blocklist", "554 Message not allowed - [299]" (Yahoo, content
  // policy), "530 Must issue a STARTTLS command first" (servers without enhanced codes)
  if (ABOUT_US.test(message)) return 'blocked';
  // "552 Mailbox full" / "552 Requested mail action aborted: exceeded storage allocation"
  if (FULL.test(message)) return 'full';
  // "550 5.5.0 Requested action not taken: mailbox unavailable" (Outlook.com),
  // "550 Requested action not taken: mailbox unavailable" (servers without enhanced codes),
  // "550 No such user here" (Exim, qmail), Yahoo's "554 delivery error: dd ..." (above)
  if (NO_MAILBOX.test(message)) return 'rejected';
  // "554 Relay access denied"
  if (POLICY.test(message)) return 'blocked';
  // "550 <bob@example.org>... User unknown" predates enhanced codes; a bare 550/551/553 to RCPT
  // is how such servers say the recipient is not there.
  if (code === 550 || code === 551 || code === 553) return 'rejected';
  // "554 Transaction failed", "530 Authentication required": nothing about the mailbox
  return 'blocked';
}

/** The sub-reason of a 'blocked' reply: which of our failings the server named. */
export function blockKind(reply: SmtpReply): BlockKind {
  const text = `${reply.enhanced ?? ''} ${reply.message}`;
  // "530 5.7.0 Must issue a STARTTLS command first" (Postfix), "554 5.7.1 TLS required" variants
  if (/starttls|\bTLS\b|encrypt/i.test(text)) return 'tls_required';
  // "554 5.7.1 Service unavailable; Client host [x] blocked using zen.spamhaus.org" (Postfix
  // reject_rbl_client), "550 5.7.606 Access denied, banned sending IP" (Outlook)
  if (/spamhaus|spamcop|barracudacentral|blocklist|blacklist|block list|\bRBL\b|\bDNSBL\b|reputation|banned sending IP|client host/i.test(text)) return 'ip_blocklisted';
  return 'blocked_by_policy';
}

/**
 * "452 4.5.3 Too many recipients" to the second RCPT: the server takes one recipient per
 * transaction (Postfix smtpd_recipient_limit=1, some Exchange connectors), which says nothing
 * about the second address; it is asked again in a transaction of its own.
 */
export function isTooManyRecipients(reply: SmtpReply): boolean {
  return (reply.code === 452 || reply.code === 552 || reply.enhanced?.endsWith('.5.3') === true) &&
    (reply.enhanced?.endsWith('.5.3') === true || TOO_MANY_RECIPIENTS.test(reply.message));
}
