import type { SmtpReply } from './smtp-session';
import type { SubReason } from './vocabulary';

/**
 * Who a rejection is about. Only `mailbox` and `domain` say anything about the address; the others
 * are about us (sender, host, rate, auth), the message or the server, and `unclear` says nothing.
 */
export type Subject =
  | 'mailbox'
  | 'domain'
  | 'full'
  | 'mailbox_rate'
  | 'sender'
  | 'auth'
  | 'rate'
  | 'host'
  | 'protocol'
  | 'message'
  | 'server'
  | 'policy'
  | 'unclear';

export interface Rejection {
  subject: Subject;
  subReason: SubReason | null;
}

/**
 * The conversation's names, when known: a reply that names our sender (or its domain) or our HELO
 * name is about us, and one that says a domain other than the recipient's is missing is too.
 */
export interface Parties {
  sender?: string;
  recipient?: string;
  helo?: string;
}

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
  // "550 5.7.1 Relaying denied: You must check for new mail before sending mail."; Exim "550
  // unacceptable cipher ...", "550 certificate not verified: peerdn=...", "435 Unable to authenticate
  // at present", OpenSMTPD "530 5.5.1 Invalid command: Must issue an AUTH command first"
  auth: /unacceptable cipher|certificate not verified|unable to authenticate|\bAUTH command|smtp auth|check (for new |your )?mail before sending|authentication required|authrequired|unauthenticated senders|must (authenticate|be authenticated)|requires authentication|password|log ?in with|no identity changes|starttls|\bTLS\b|encryption required/i,
  // "553 5.1.8 <root@host>... Domain of sender address root@host does not exist", "550 5.1.0
  // <bounce@x> sender rejected", "550 Unroutable sender address", "550 Bad SPF records for [..]",
  // "550 DMARC check failed", "550 5.7.509 Access denied, sending domain [X] does not pass DMARC
  // verification", Postfix "550 5.1.0 <baz@example.com>: Sender address rejected: User unknown in
  // local recipient table", "554 Message rejected: Email address is not verified" (Amazon SES),
  // "550 5.7.1 can't determine Purported Responsible Address"; not Gmail's "go to Email sender
  // guidelines" under its content refusals, nor "Duplicate header 'DKIM-Signature'"
  sender:
    /\bsenders?\b(?! guidelines)|\bSPF\b|\bDMARC\b|\bDKIM\b(?!-signature)|authentication (information|checks|results)|mail[ -]?from(?! \[?\d| your)|envelope from|from address|return.?path|purported\s+responsible|not owned by user|email address is not verified|not a registered gateway user/i,
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
  // "Blocked - see https://ipcheck.proofpoint.com/?ip=x"; refusals of our interface or source
  // address ("not a recognized source")
  host: /client host|\bhelo\b|\behlo\b|reverse (dns|hostname)|\bPTR\b|\brdns\b|ip name lookup|mismatches client ip|(your|sending) (ip|network|server|mail server|location|host)\b|^IP=\d|invalid ip|ip name possibly forged|\bip (address )?(is )?(in|on|listed|blacklisted|blocked|not authori[sz]ed)|blocked ip|banned|block ?list|black ?list|spamhaus|spamcop|barracuda|dnsbl|\bRBL\b|reputation|sbrs|host network|connections? (not accepted|rejected)|messages from \[?\d|mail from \d|server of your ISP|administratively denied|not authorized to send email directly|junkmail|ipcheck|unauthori[sz]ed interface|not a recognized source/i,
  // Postfix "550 5.1.1 <x>: Recipient address rejected: User unknown in virtual mailbox table", Gmail
  // "550-5.1.1 The email account that you tried to reach does not exist", "The email account that
  // you tried to reach is disabled" / "is inactive", Yahoo "554 delivery error: dd This user doesn't
  // have a yahoo.com account", Microsoft "550 5.1.10 RESOLVER.ADR.RecipientNotFound", Outlook "550
  // 5.5.0 Requested action not taken: mailbox unavailable", qmail "sorry, no mailbox here by that
  // name", Exim "Unrouteable address", Orange "Invalid recipient", "550 Mailbox is frozen",
  // "525 5.7.13 Disabled recipient address", "551 not our user", "recipient no longer on server",
  // "553 Invalid/inactive user.", OpenSMTPD "550 5.1.1 Bad destination mailbox address", "550 5.1.6
  // Destination mailbox has moved, No forwarding address", Sendmail "550 5.1.1 <x>... Addressee
  // unknown", Exim "550 Bad user"
  mailbox:
    /user(name)? (is )?unknown|unknown (user|recipient|local part|address)|no such (user|person|mailbox|recipient|account)|does ?n[o']t (exist|have an? [\w.-]* ?account)|dosn't exist|not exist|(user|mailbox|recipient|address|account) not found|not found by smtp address lookup|recipnotfound|recipientnotfound|invalid (recipient|mailbox|address|email address)|(is )?not a valid mailbox|unknown or illegal (user|alias)|invalid\/inactive user|(invalid|inactive) user\b|not listed in (the )?(public )?(name|address|directory)|tried to reach is (disabled|inactive)|mailbox (is )?(unavailable|not available|disabled|inactive|frozen|locked)|no mailbox|unrouteable address|(account|mailbox|user|recipient|address)( \S+)? (is|has been) (disabled|inactive|deactivated|discontinued|blocked|suspended|locked)|inactive email address|disabled recipient|utilisateur inconnu|destinataire invalide|not our (user|customer)|no longer (on server|available)|could not be found|delivery error: dd |address error|not handled by this system|recipient (unknown|rejected|not found)|has moved|no forwarding address|bad destination mailbox address(?! syntax)|addressee unknown|\bbad (user|recipient)\b|mailbox <> unknown|\baddress rejected\b(?!:)/i,
  // Gmail "553 5.1.2 We weren't able to find the recipient domain", "550 Host unknown", "550 5.4.4
  // Invalid domain", Postfix "556 5.1.10 <x>: Recipient address rejected: Domain x does not accept
  // mail (nullMX)", "550 Host does not accept mail", Sendmail "553 5.1.2 <x>... Unrecognized host name x"
  domain:
    /recipient domain|host unknown|unrecogni[sz]ed host name|invalid domain\b(?! name)|domain (not found|does not exist|is not reachable)|does not accept mail|no such domain/i,
  // our conversation, never the mailbox (RFC 3463 x.5.x): Postfix "503 5.5.1 Error: need MAIL
  // command", "500 5.5.2 Error: command not recognized", qmail "503 MAIL first (#5.5.1)", "555
  // syntax error (#5.5.4)", Sendmail "503 5.0.0 Need MAIL before RCPT", "503 5.0.0 Polite people say
  // HELO first", Exim "503 sender not yet given", "501 Too many syntax or protocol errors", "500 Too
  // many unrecognized commands", "554 SMTP synchronization error", postscreen "550 5.5.1 Protocol
  // error", OpenSMTPD "503 5.5.1 Invalid command: Command not allowed at this point.", Haraka "503
  // Use MAIL before RCPT", an address's form ("501 5.1.3 Bad recipient address syntax", Exim "501 x:
  // recipient address must contain a domain", "533 no support for internationalised mailbox name")
  protocol:
    /bad sequence|syntax error|syntactically|\bsyntax:|bad (\w+ )*syntax|address syntax|unrecogni[sz]ed (command|parameter)|command (unrecogni[sz]ed|not recogni[sz]ed)|too many unrecogni[sz]ed|(not|un)implemented|\b(mail|rcpt|helo|ehlo) first\b|need (mail|rcpt|helo)|(helo|ehlo)\/?(ehlo|helo)? (required|first)|introduce yourself|(use|need) \S+ before|must precede|not yet given|already (given|specified|identified)|protocol error|synchroni[sz]ation|pipelining|nonmail commands|not allowed at this point|in smtp commands|must (have an address operand|contain a domain|include (a )?host ?name)|(hostname|host name|user address|domain name|fully.qualified address) required|need fully-qualified address|missing recipient|too many parameters|address too long|prescan|unsupported option|command parameters|(used|not) (when not )?advertised|internationali[sz]ed mailbox|smtputf8|(helo|ehlo) requires|accept addresses like that/i,
  // Gmail "550 5.7.1 ... this message is likely unsolicited mail", "550 5.7.1 Message content
  // rejected, UBE", "552 5.3.4 Message too large", "550 Virus Detected; Content Rejected", "554 5.7.0
  // Reject, id=... - SPAM", Yahoo "554 Message not allowed", "554 5.7.9 Message not accepted for policy
  // reasons", Orange "550 5.2.0 Mail rejete. Mail rejected. OFR_506 [506]" (its anti-spam code),
  // Haraka "550 Message too big!", OpenSMTPD "500 5.4.6 Routing loop detected: Loop detected",
  // "550 5.7.1 Delivery not authorized, message refused: Message is not RFC 2822 compliant"
  message:
    /content|mail rejected|too big|loop detected|looping|rfc ?(2822|5322) compliant|mail rejete|addresses in from:|spam|unsolicited|virus|attachment|header|RFC ?5322|\bUBE\b|too large|message size|size limit|exceeds .*(size|limit)|message length|malformed|8-bit|too many hops|mail loop|message (is )?not (allowed|accepted)|message filtered|line limit/i,
  // "550 5.3.5 ... Internal System Error", "554 5.3.0 ... Internal system error", Orange "550 5.5.0
  // Service refuse. Veuillez essayer plus tard", "554 Transaction failed", "554 Service currently
  // unavailable", OpenSMTPD "421 4.3.2 System not accepting network messages"
  server:
    /not accepting (connections|network messages)|internal|system error|local error|server error|temporar|try (again )?later|plus tard|service (is )?(currently )?(unavailable|not available|refused?)|transaction failed|configuration error|resources/i,
  // Postfix "554 5.7.1 <x>: Relay access denied", access(5) "554 5.7.1 <x>: Recipient address
  // rejected: Access denied", "550 Denied by policy", "550 5.7.0 Local Policy Violation", Gmail
  // "550 5.7.1 The user or domain that you are sending to (or from) has a policy that prohibited the
  // mail"; qmail "553 sorry, that domain isn't in my list of allowed rcpthosts (#5.7.1)"; Exim "550
  // Administrative prohibition", "550 x is a closed mailing list"; Haraka "550 I cannot deliver mail
  // for <x>" (no plugin took the recipient: a relay refusal)
  policy:
    /relay(?! recipient table)|rcpthosts|policy|prohibition|closed mailing list|cannot deliver mail for|access denied|prohibited|not (allowed|permitted|authori[sz]ed)|denied|refused|(?<!account is )\bblocked\b|recipient preferences/i,
};

const subReasonOf: Record<Subject, SubReason | null> = {
  mailbox: null,
  domain: null,
  full: 'mailbox_full',
  mailbox_rate: 'rate_limited',
  rate: 'rate_limited',
  sender: 'sender_rejected',
  auth: 'auth_required',
  host: 'host_rejected',
  protocol: 'protocol_error',
  message: 'message_rejected',
  server: 'server_error',
  policy: 'blocked_by_policy',
  unclear: 'unclear_rejection',
};

/** Which subject an enhanced status code names (RFC 3463 and the IANA registry); null: none. */
function subjectOfCode(enhanced: string | null): Subject | null {
  if (!enhanced) return null;
  const [, subject, detail] = enhanced.split('.').map(Number);
  // X.1.3 is the address's syntax: ours was checked, so the server disagrees about form, not existence
  if (subject === 1)
    return [1, 6, 10].includes(detail) ? 'mailbox' : detail === 3 ? 'protocol' : detail === 2 ? 'domain' : detail === 7 || detail === 8 ? 'sender' : null;
  if (subject === 2) return detail === 2 ? 'full' : detail === 1 ? 'mailbox' : detail === 3 ? 'message' : null;
  if (subject === 3) return detail === 4 ? 'message' : 'server';
  // X.5.3 too many recipients; the rest of X.5.x is the conversation (bad sequence, syntax)
  if (subject === 5) return detail === 3 ? 'rate' : 'protocol';
  if (subject === 6) return 'message';
  // X.7.13 user account disabled; X.7.25 reverse DNS; X.7.23/26/27 SPF, DKIM/DMARC, null-MX sender
  if (subject === 7) return detail === 13 ? 'mailbox' : detail === 25 ? 'host' : [23, 26, 27, 509].includes(detail) ? 'sender' : 'policy';
  return null;
}

/** Codes that contradict words saying the mailbox or domain is missing. */
const CONTRADICTS_RECIPIENT = new Set<Subject>(['sender', 'host', 'message', 'policy', 'full']);

/**
 * Gone for good: a mailbox that existed and will not come back. A server that knows one mailbox has
 * moved answers a never-existing one in other words, so these stand even when the made-up address
 * was refused otherwise (control.ts): OpenSMTPD "550 5.1.6 Destination mailbox has moved, No
 * forwarding address", "551 not our user", "recipient no longer on server", and Microsoft 365's
 * directory-based edge blocking "550 5.4.1 Recipient address rejected: Access denied. AS(201806281)",
 * which Microsoft documents as its reply when "the address doesn't exist".
 */
export function isGoneForGood(reply: SmtpReply): boolean {
  return (
    reply.enhanced?.endsWith('.1.6') === true ||
    GONE.test(reply.message) ||
    (reply.enhanced === '5.4.1' && /recipient address rejected: access denied/i.test(reply.message))
  );
}
const GONE = /has moved|no forwarding address|not our (user|customer)|no longer (on (this )?server|(with|at) us|exists?)/i;

/**
 * Reads a rejection of RCPT (5xx, or a 4xx deferral) by its subject: the words first, the enhanced code
 * beside them. Only words say a mailbox or domain is missing: a code alone ("550 5.1.1" and nothing
 * we know) is `unclear`, and so are words that something else contradicts. Replies that name us (our
 * sender, its domain, our HELO name), the message, the server or the conversation are never about
 * the mailbox, however they are coded.
 */
export function readRejection(reply: SmtpReply, parties: Parties = {}): Rejection {
  // the addresses and hosts it names are no words: "<bob@tls.test>" says nothing about TLS
  const text = reply.message.replace(/<[^>]*>/g, '<>').replace(/[^\s<>()'"]+@[^\s<>()'"]+/g, '@');
  const code = subjectOfCode(reply.enhanced);
  const found = (subject: Exclude<Subject, 'unclear'>) => REJECTION_RULES[subject].test(text);
  const as = (subject: Subject, subReason = subReasonOf[subject]): Rejection => ({ subject, subReason });

  if (found('mailbox_rate')) return as('mailbox_rate');
  if (isGoneForGood(reply) && !found('sender') && !found('host')) return as('mailbox');
  const missing = found('mailbox') || found('domain');
  if (found('full')) return missing ? as('unclear') : as('full');
  if (found('auth')) return as('auth', /starttls|\bTLS\b|encrypt|cipher|certificate/i.test(text) ? 'tls_required' : 'auth_required');
  // "Connections not accepted from servers without a valid sender domain. Fix reverse DNS for x",
  // "Poor Reputation Sender": a named list or reverse DNS is about our host, whatever else is said
  const hostKind = hostSubReason(text);
  if (hostKind !== 'host_rejected') return as('host', hostKind);
  // Sendmail's "550 5.1.1 <check@verifier.test>... User unknown" or "... Access denied" about our
  // MAIL FROM (a sender check at RCPT): the address it names is ours, not the recipient's
  const named = namesUs(reply.message, parties);
  // OpenSMTPD "501 5.5.4 Invalid command arguments: Invalid domain name" is its answer to our HELO
  if (/invalid domain name/i.test(text)) return as('host', 'host_rejected');
  // the conversation before the sender or host words it uses: "503 sender not yet given", "503 Use
  // EHLO/HELO before MAIL", "553 5.1.0 Sender address syntax error" are about our commands' order or form
  if (found('protocol') && named !== 'sender') return as('protocol');
  if (found('sender') || named === 'sender') return as('sender');
  if (named === 'host') return as('host', 'host_rejected');
  if (found('rate')) return as('rate');
  if (found('host')) return as('host', hostKind);
  if (missing) {
    // "550 5.7.1 550 User Unknown", "User x temporary locked. Please try again later!": the words
    // and the code (or other words) disagree; only the made-up address and postmaster can settle it
    if (found('message') || found('server') || found('policy') || (code && CONTRADICTS_RECIPIENT.has(code))) return as('unclear');
    // "No such domain <a domain that is not the recipient's>": our sender's or HELO's domain
    if (namesOtherMissingDomain(reply.message, parties.recipient)) return as('sender');
    return as(found('domain') && !found('mailbox') ? 'domain' : 'mailbox');
  }
  for (const subject of ['message', 'server', 'policy'] as const) if (found(subject)) return as(subject);
  // no words we know: the enhanced code may point at us, the message, the server or the
  // conversation; it never proves a missing mailbox alone ("550 5.1.1" is as bare as "550 Rejected")
  if (code === 'host') return as('host', 'reverse_dns');
  if (code && code !== 'mailbox' && code !== 'domain' && code !== 'mailbox_rate') return as(code);
  return as('unclear');
}

function hostSubReason(text: string): SubReason {
  // "Client host rejected: cannot find your reverse hostname", Gmail "550-5.7.25 ... PTR record"
  if (
    /reverse (dns|hostname)|\bPTR\b|\brdns\b|ip name lookup|ip name possibly forged|cannot find your hostname|mismatches client ip|possibly forged hostname|ip address \S+ does not resolve/i.test(
      text,
    )
  )
    return 'reverse_dns';
  if (/banned sending|block ?list|black ?list|blocked using|spamhaus|spamcop|barracuda|dnsbl|\bRBL\b|reputation|sbrs|(?<!not )listed (on|at|in)\b/i.test(text))
    return 'ip_blocklisted';
  return 'host_rejected';
}

const domainOf = (address: string | undefined) => (address && address.includes('@') ? address.slice(address.lastIndexOf('@') + 1).toLowerCase() : '');
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** `name` as a whole name in `text`: "verifier.example" in "<verifier.example>" but not in "mx.verifier.example.net" */
const namesName = (text: string, name: string) => !!name && new RegExp(`(^|[^a-z0-9.-])${escape(name)}($|[^a-z0-9-]|\\.(?![a-z0-9]))`, 'i').test(text);
/** One name is the other or under it (mx.example.org and example.org). */
const related = (a: string, b: string) => a === b || a.endsWith(`.${b}`) || b.endsWith(`.${a}`);

/**
 * Whether the reply names our envelope sender (the address, or its domain when that is not the
 * recipient's) or our HELO name, and not the recipient's address: such a reply is about us.
 */
function namesUs(message: string, { sender, recipient, helo }: Parties): 'sender' | 'host' | null {
  const text = message.toLowerCase();
  if (recipient && text.includes(recipient.toLowerCase())) return null;
  if (sender && text.includes(sender.toLowerCase())) return 'sender';
  const recipientDomain = domainOf(recipient);
  const unrelated = (name: string) => !!name && !(recipientDomain && related(name, recipientDomain));
  if (helo && unrelated(helo.toLowerCase()) && namesName(text, helo.toLowerCase())) return 'host';
  const senderDomain = domainOf(sender);
  if (unrelated(senderDomain) && namesName(text.replace(/\S+@\S+/g, ' '), senderDomain)) return 'sender';
  return null;
}

/**
 * Words that say a named domain is missing ("No such domain x", "Domain x does not exist",
 * "x does not exist"), where x is not the recipient's domain (nor a name under it or above it).
 */
function namesOtherMissingDomain(message: string, recipient: string | undefined): boolean {
  const recipientDomain = domainOf(recipient);
  if (!recipientDomain) return false;
  const text = message.replace(/https?:\/\/\S+/gi, ' ').replace(/\S+@\S+/g, ' ');
  const name = '([a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*\\.[a-z]{2,})';
  const patterns = [
    new RegExp(`(?:no such domain|unknown domain|domain(?: name)?)[\\s:]*[<"'(\\[]?${name}`, 'gi'),
    new RegExp(`${name}[>"')\\]]?[\\s:]*(?:does ?n[o']t exist|not found|domain not found)`, 'gi'),
  ];
  return patterns.some((pattern) => [...text.matchAll(pattern)].some((m) => !related(m[1]!.toLowerCase(), recipientDomain)));
}
