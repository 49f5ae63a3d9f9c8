import type { SmtpReply } from './smtp-session';
import type { SubReason } from './vocabulary';

/**
 * Who a rejection is about. Only `mailbox` and `domain` say anything about the address; the others
 * are about us (sender, host, rate, auth), the message or the server, and `unclear` says nothing.
 */
export type Subject = 'mailbox' | 'domain' | 'full' | 'mailbox_rate' | 'sender' | 'auth' | 'rate' | 'host' | 'message' | 'server' | 'policy' | 'unclear';

export interface Rejection { subject: Subject; subReason: SubReason | null }

/** The conversation's addresses, when known: a reply that names our sender is about it. */
export interface Parties { sender?: string; recipient?: string }

// Each rule quotes a reply it was written for; test/fixtures/rejections holds them and hundreds more.
export const REJECTION_RULES: Record<Exclude<Subject, 'unclear'>, RegExp> = {
  // Gmail: "550-5.2.1 The user you are trying to contact is receiving mail at a rate that prevents
  // additional messages from being delivered", "450 4.2.1 The user you are trying to contact is
  // receiving mail too quickly": the mailbox exists and is busy
  mailbox_rate: /receiving mail (at a rate|too (fast|quickly))|receiving too much mail|too many messages for this (user|recipient|mailbox)/i,
  // "552 5.2.2 Over quota", "552 Error: disk quota exceeded", "550 5.2.2 STOREDRV.Deliver: mailbox
  // full", Gmail "552-5.2.2 The recipient's inbox is out of storage space", "550 user has too many
  // messages on the server", "552 Requested mail action aborted: exceeded storage allocation"
  full: /over ?quota|quota exceeded|exceeded (the |its )?quota|mailbox (is )?full|inbox is full|out of storage|insufficient (system )?storage|exceeded storage|too many messages on the server/i,
  // "550-Please turn on SMTP Authentication in your mail client", "550 5.7.1 RESOLVER.RST.AuthRequired;
  // authentication required", "550 Unauthenticated senders not allowed", "530 5.7.0 Must issue a
  // STARTTLS command first", Gmail "535 5.7.1 Username and Password not accepted", POP before SMTP:
  // "550 5.7.1 Relaying denied: You must check for new mail before sending mail."
  auth: /smtp auth|check (for new |your )?mail before sending|authentication required|authrequired|unauthenticated senders|must (authenticate|be authenticated)|requires authentication|password|log ?in with|no identity changes|starttls|\bTLS\b|encryption required/i,
  // "553 5.1.8 <root@host>... Domain of sender address root@host does not exist", "550 5.1.0
  // <bounce@x> sender rejected", "550 Unroutable sender address", "550 Bad SPF records for [..]",
  // "550 DMARC check failed", "550 5.7.509 Access denied, sending domain [X] does not pass DMARC
  // verification", Postfix "550 5.1.0 <baz@example.com>: Sender address rejected: User unknown in
  // local recipient table", "554 Message rejected: Email address is not verified" (Amazon SES),
  // "550 5.7.1 can't determine Purported Responsible Address"; not Gmail's "go to Email sender
  // guidelines" under its content refusals, nor "Duplicate header 'DKIM-Signature'"
  sender: /\bsenders?\b(?! guidelines)|\bSPF\b|\bDMARC\b|\bDKIM\b(?!-signature)|authentication (information|checks|results)|mail ?from(?! \[?\d| your)|envelope from|from address|return.?path|purported\s+responsible|not owned by user|email address is not verified|not a registered gateway user/i,
  // "550 <x> - 203.0.113.222 has sent to too many recipients this hour. IB607" (GoDaddy), "550 Ip
  // frequency limited" / "550 Connection frequency limited" (Tencent), "554 ... You've reached your
  // daily relay quota", Gmail "550 5.4.5 Daily SMTP relay limit exceeded", "552 Too many recipients"
  rate: /too many (recipients|messages|connections)|frequency limited|rate limit|(relay|sending|daily|hourly) (limit|quota)|sending too fast|throttl/i,
  // Postfix "554 5.7.1 Service unavailable; Client host [x] blocked using zen.spamhaus.org",
  // "Client host rejected: cannot find your reverse hostname, [x]", "504 5.5.2 <foo>: Helo command
  // rejected: need fully-qualified hostname"; Microsoft "550 5.7.606 Access denied, banned sending
  // IP [x]", "... part of their network is on our block list (S3150)"; "551 Server access [x]
  // forbidden by invalid RDNS record of your mail server"; "550 5.7.1 Connections not accepted from
  // servers without a valid sender domain. Fix reverse DNS for x"; Sendmail "550 5.7.1 Relaying
  // denied. IP name possibly forged [x]"; Gmail "550-5.7.25 The IP address
  // sending this message does not have a PTR record setup"; "554 Host network not allowed" (Mimecast),
  // "Blocked - see https://ipcheck.proofpoint.com/?ip=x"
  host: /client host|\bhelo\b|\behlo\b|reverse (dns|hostname)|\bPTR\b|\brdns\b|ip name lookup|mismatches client ip|(your|sending) (ip|network|server|mail server|location|host)\b|^IP=\d|invalid ip|ip name possibly forged|\bip (address )?(is )?(in|on|listed|blacklisted|blocked|not authori[sz]ed)|blocked ip|banned|block ?list|black ?list|spamhaus|spamcop|barracuda|dnsbl|\bRBL\b|reputation|sbrs|host network|connections? (not accepted|rejected)|messages from \[?\d|mail from \d|server of your ISP|administratively denied|not authorized to send email directly|junkmail|ipcheck/i,
  // Postfix "550 5.1.1 <x>: Recipient address rejected: User unknown in virtual mailbox table", Gmail
  // "550-5.1.1 The email account that you tried to reach does not exist", "The email account that
  // you tried to reach is disabled" / "is inactive", Yahoo "554 delivery error: dd This user doesn't
  // have a yahoo.com account", Microsoft "550 5.1.10 RESOLVER.ADR.RecipientNotFound", Outlook "550
  // 5.5.0 Requested action not taken: mailbox unavailable", qmail "sorry, no mailbox here by that
  // name", Exim "Unrouteable address", Orange "Invalid recipient", "550 Mailbox is frozen",
  // "525 5.7.13 Disabled recipient address", "551 not our user", "recipient no longer on server",
  // "553 Invalid/inactive user."
  mailbox: /user(name)? (is )?unknown|unknown (user|recipient|local part|address)|no such (user|person|mailbox|recipient|account)|does ?n[o']t (exist|have an? [\w.-]* ?account)|dosn't exist|not exist|(user|mailbox|recipient|address|account) not found|not found by smtp address lookup|recipnotfound|recipientnotfound|invalid (recipient|mailbox|address|email address)|(is )?not a valid mailbox|unknown or illegal (user|alias)|invalid\/inactive user|(invalid|inactive) user\b|not listed in (the )?(public )?(name|address|directory)|tried to reach is (disabled|inactive)|mailbox (is )?(unavailable|not available|disabled|inactive|frozen|locked)|no mailbox|unrouteable address|(account|mailbox|user|recipient|address)( \S+)? (is|has been) (disabled|inactive|deactivated|discontinued|blocked|suspended|locked)|inactive email address|disabled recipient|utilisateur inconnu|destinataire invalide|not our (user|customer)|no longer (on server|available)|could not be found|delivery error: dd |address error|not handled by this system|recipient (unknown|rejected|not found)|\baddress rejected\b(?!:)/i,
  // Gmail "553 5.1.2 We weren't able to find the recipient domain", "550 Host unknown", "550 5.4.4
  // Invalid domain", Postfix "556 5.1.10 <x>: Recipient address rejected: Domain x does not accept
  // mail (nullMX)", "550 Host does not accept mail"
  domain: /recipient domain|host unknown|invalid domain\b(?! name)|domain (not found|does not exist|is not reachable)|does not accept mail|no such domain/i,
  // Gmail "550 5.7.1 ... this message is likely unsolicited mail", "550 5.7.1 Message content
  // rejected, UBE", "552 5.3.4 Message too large", "550 Virus Detected; Content Rejected", "554 5.7.0
  // Reject, id=... - SPAM", Yahoo "554 Message not allowed", "554 5.7.9 Message not accepted for policy
  // reasons", Orange "550 5.2.0 Mail rejete. Mail rejected. OFR_506 [506]" (its anti-spam code)
  message: /content|mail rejected|mail rejete|addresses in from:|spam|unsolicited|virus|attachment|header|RFC ?5322|\bUBE\b|too large|message size|size limit|exceeds .*(size|limit)|message length|malformed|8-bit|too many hops|mail loop|message (is )?not (allowed|accepted)|message filtered|line limit/i,
  // "550 5.3.5 ... Internal System Error", "554 5.3.0 ... Internal system error", Orange "550 5.5.0
  // Service refuse. Veuillez essayer plus tard", "554 Transaction failed", "554 Service currently unavailable"
  server: /internal|system error|local error|server error|temporar|try (again )?later|plus tard|service (is )?(currently )?(unavailable|not available|refused?)|transaction failed|configuration error|resources/i,
  // Postfix "554 5.7.1 <x>: Relay access denied", access(5) "554 5.7.1 <x>: Recipient address
  // rejected: Access denied", "550 Denied by policy", "550 5.7.0 Local Policy Violation", Gmail
  // "550 5.7.1 The user or domain that you are sending to (or from) has a policy that prohibited the
  // mail"; qmail "553 sorry, that domain isn't in my list of allowed rcpthosts (#5.7.1)"
  policy: /relay(?! recipient table)|rcpthosts|policy|access denied|prohibited|not (allowed|permitted|authori[sz]ed)|denied|refused|(?<!account is )\bblocked\b|recipient preferences/i,
};

const subReasonOf: Record<Subject, SubReason | null> = {
  mailbox: null, domain: null, full: 'mailbox_full', mailbox_rate: 'rate_limited', rate: 'rate_limited', sender: 'sender_rejected',
  auth: 'auth_required', host: 'host_rejected', message: 'message_rejected', server: 'server_error', policy: 'blocked_by_policy', unclear: 'unclear_rejection',
};

/** Which subject an enhanced status code names (RFC 3463 and the IANA registry); null: none. */
function subjectOfCode(enhanced: string | null): Subject | null {
  if (!enhanced) return null;
  const [, subject, detail] = enhanced.split('.').map(Number);
  if (subject === 1) return [1, 3, 6, 10].includes(detail) ? 'mailbox' : detail === 2 ? 'domain' : detail === 7 || detail === 8 ? 'sender' : null;
  if (subject === 2) return detail === 2 ? 'full' : detail === 1 ? 'mailbox' : detail === 3 ? 'message' : null;
  if (subject === 3) return detail === 4 ? 'message' : 'server';
  if (subject === 6) return 'message';
  // X.7.13 user account disabled; X.7.25 reverse DNS; X.7.23/26/27 SPF, DKIM/DMARC, null-MX sender
  if (subject === 7) return detail === 13 ? 'mailbox' : detail === 25 ? 'host' : [23, 26, 27, 509].includes(detail) ? 'sender' : 'policy';
  return null;
}

/** Codes that contradict words saying the mailbox or domain is missing. */
const CONTRADICTS_RECIPIENT = new Set<Subject>(['sender', 'host', 'message', 'policy', 'full']);

/**
 * Reads a rejection of RCPT (5xx, or a 4xx deferral) by its subject: the words first, the enhanced code
 * beside them. Replies that name us, the message or the server are never about the mailbox, however
 * they are coded; words that say the mailbox is missing count only when nothing contradicts them.
 */
export function readRejection(reply: SmtpReply, parties: Parties = {}): Rejection {
  // the addresses and hosts it names are no words: "<bob@tls.test>" says nothing about TLS
  const text = reply.message.replace(/<[^>]*>/g, '<>').replace(/[^\s<>()'"]+@[^\s<>()'"]+/g, '@');
  const code = subjectOfCode(reply.enhanced);
  const found = (subject: Exclude<Subject, 'unclear'>) => REJECTION_RULES[subject].test(text);
  const as = (subject: Subject, subReason = subReasonOf[subject]): Rejection => ({ subject, subReason });

  if (found('mailbox_rate')) return as('mailbox_rate');
  // Microsoft 365 directory-based edge blocking: "550 5.4.1 Recipient address rejected: Access
  // denied. AS(201806281)" is how Exchange Online says the recipient does not exist
  if (reply.enhanced === '5.4.1' && /recipient address rejected: access denied/i.test(text)) return as('mailbox');
  const missing = found('mailbox') || found('domain');
  if (found('full')) return missing ? as('unclear') : as('full');
  if (found('auth')) return as('auth', /starttls|\bTLS\b|encryption/i.test(text) ? 'tls_required' : 'auth_required');
  // "Connections not accepted from servers without a valid sender domain. Fix reverse DNS for x",
  // "Poor Reputation Sender": a named list or reverse DNS is about our host, whatever else is said
  const hostKind = hostSubReason(text);
  if (hostKind !== 'host_rejected') return as('host', hostKind);
  // Sendmail's "550 5.1.1 <check@verifier.test>... User unknown" or "... Access denied" about our
  // MAIL FROM (a sender check at RCPT): the address it names is ours, not the recipient's
  if (found('sender') || namesOnly(reply.message, parties.sender, parties.recipient)) return as('sender');
  if (found('rate')) return as('rate');
  if (found('host')) return as('host', hostKind);
  if (missing) {
    // "550 5.7.1 550 User Unknown", "User x temporary locked. Please try again later!": the words
    // and the code (or other words) disagree; only the made-up address's reply can settle it
    if (found('message') || found('server') || found('policy') || (code && CONTRADICTS_RECIPIENT.has(code))) return as('unclear');
    return as(found('domain') && !found('mailbox') ? 'domain' : 'mailbox');
  }
  for (const subject of ['message', 'server', 'policy'] as const) if (found(subject)) return as(subject);
  // no words we know: the enhanced code alone, "550 5.1.1" being a statement and "550 Rejected" not
  if (code === 'host') return as('host', 'reverse_dns');
  if (code && code !== 'mailbox_rate') return as(code);
  return as('unclear');
}

function hostSubReason(text: string): SubReason {
  // "Client host rejected: cannot find your reverse hostname", Gmail "550-5.7.25 ... PTR record"
  if (/reverse (dns|hostname)|\bPTR\b|\brdns\b|ip name lookup|ip name possibly forged|cannot find your hostname|mismatches client ip/i.test(text)) return 'reverse_dns';
  if (/banned|block ?list|black ?list|blocked using|spamhaus|spamcop|barracuda|dnsbl|\bRBL\b|reputation|sbrs|(?<!not )listed (on|at|in)\b/i.test(text)) return 'ip_blocklisted';
  return 'host_rejected';
}

/** The reply names `address` (and not `other`). */
function namesOnly(message: string, address: string | undefined, other: string | undefined): boolean {
  const text = message.toLowerCase();
  return !!address && text.includes(address.toLowerCase()) && !(other && text.includes(other.toLowerCase()));
}
