import { REJECTION_RULES, type Subject } from './rejection-rules';
import type { SmtpReply } from './smtp-session';
import type { SubReason } from './vocabulary';

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

const domainOf = (address: string | undefined) => (address?.includes('@') ? address.slice(address.lastIndexOf('@') + 1).toLowerCase() : '');
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** `name` as a whole name in `text`: "verifier.example" in "<verifier.example>" but not in "mx.verifier.example.net" */
const namesName = (text: string, name: string) => !!name && new RegExp(`(^|[^a-z0-9.-])${escapeRegExp(name)}($|[^a-z0-9-]|\\.(?![a-z0-9]))`, 'i').test(text);
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
