import type { MailRoute } from './dns';
import type { MailboxProvider } from './providers';
import type { ReplyMeaning } from './reply';
import type { ProbeStage, SmtpReply } from './smtp';
import { checkSyntax, type SyntaxResult } from './syntax';
import type { Reason, RiskLevel, SubReason, Verdict, VerdictStatus } from './types';

/** Everything verify() learnt about one address; null means that step was not reached. */
export interface Facts {
  email: string;
  syntax: SyntaxResult;
  disposable: boolean;
  role: boolean;
  free: boolean;
  didYouMean: string | null;
  route: MailRoute | null;
  mxHost: string | null;
  smtp: SmtpFacts | null;
  /** the caller's deadline passed before an answer */
  timedOut: boolean;
  /** who runs the mailboxes, from the MX hosts (providers.ts) */
  mailboxProvider: MailboxProvider | null;
  /**
   * What DNS said beyond the route: every MX host name failed to resolve (mail cannot be
   * delivered), or the resolver denies a name that must exist (its NXDOMAIN proves nothing).
   */
  dnsProblem: { kind: 'mx_unresolvable' | 'resolver_unreliable'; detail: string } | null;
  /** our side failed before the mail system could answer (the politeness store, a bug): its message */
  internalFailure?: string;
}

export interface SmtpFacts {
  /** what the deciding reply meant; null when the server gave no reply */
  meaning: ReplyMeaning | null;
  /**
   * why there was no reply: refused_private = the MX resolves to a private address; dns = no MX
   * host name could be looked up (SERVFAIL, time-out); protocol = the
   * server broke a limit of SMTP_LIMITS (lib/verifier/smtp.ts) and the conversation was cut off
   */
  failure: 'no_connect' | 'timeout' | 'dropped' | 'protocol' | 'tls' | 'refused_private' | 'dns' | null;
  /** what went wrong, when known ("a reply of more than 100 lines") */
  detail?: string | null;
  reply: SmtpReply | null;
  /** the sub-reason the reply named (reply.ts: sender_rejected, rate_limited, …); null: none */
  subReason?: SubReason | null;
  /** the made-up address's reply the rejection was weighed against (control.ts) */
  controlReply?: SmtpReply | null;
  /** an unclear rejection made undeliverable by the made-up address's identical one, postmaster accepted */
  settled?: boolean;
  /** postmaster@'s reply the rejection was weighed against (control.ts) */
  postmasterReply?: SmtpReply | null;
  /** postmaster was refused as the address was: the refusal is about us */
  postmasterRefused?: boolean;
  /** where the deciding reply came (or the conversation stopped); absent: 'rcpt' */
  stage?: ProbeStage;
  /** the conversation ran over STARTTLS */
  tls?: boolean;
  catchAll: boolean | null;
  attempts: number;
  /** every MX host name was denied by DNS: "mx.example.test: NXDOMAIN; ..." */
  mxUnresolvable?: string;
}

interface Shape {
  reason: Reason;
  status: VerdictStatus;
  valid: boolean;
  deliverable: boolean;
  risk: RiskLevel;
  score: number;
  confidence: number;
  subReason?: SubReason;
}

const MAX_MESSAGE = 500;

const UNDELIVERABLE = { status: 'undeliverable', valid: false, deliverable: false, risk: 'high', score: 0 } as const;
const UNKNOWN = { status: 'unknown', valid: true, deliverable: false, risk: 'unknown', score: 40, confidence: 20 } as const;

/** The one place facts become a verdict. Scores follow the sandbox table in docs/api.md ("Sandbox mode"). */
export function decideVerdict(facts: Facts): Verdict {
  const shape = decideShape(facts);
  const { syntax, route, smtp } = facts;
  const provider = syntax.ok ? syntax.asciiDomain : facts.email.slice(facts.email.lastIndexOf('@') + 1).toLowerCase();
  return {
    email: facts.email,
    normalized_email: syntax.ok ? syntax.normalized : null,
    valid: shape.valid,
    deliverable: shape.deliverable,
    risk_level: shape.risk,
    reason: shape.reason,
    sub_reason: shape.subReason ?? (shape.status === 'unknown' ? 'unexpected_error' : null),
    confidence: shape.confidence,
    status: shape.status,
    score: shape.score,
    provider,
    mailbox_provider: facts.mailboxProvider?.id ?? null,
    details: {
      syntax_valid: syntax.ok,
      domain_exists: (route !== null && route.kind !== 'nxdomain' && route.kind !== 'unknown') || facts.dnsProblem?.kind === 'resolver_unreliable',
      // an implicit MX (A record only) still is a mail host
      mx_record: route?.kind === 'mx' || route?.kind === 'implicit',
      smtp_valid: smtp?.meaning === 'accepted',
    },
    disposable: facts.disposable,
    role: facts.role,
    free: facts.free,
    catch_all: shape.reason === 'accept_all',
    did_you_mean: facts.didYouMean,
    evidence:
      route === null
        ? null
        : {
            mx_host: facts.mxHost,
            smtp_code: smtp?.reply?.code ?? null,
            smtp_enhanced_code: smtp?.reply?.enhanced ?? null,
            // a server's text is kept short: every stored verdict carries it
            smtp_message: smtp?.reply?.message.slice(0, MAX_MESSAGE) ?? null,
            smtp_failure: smtp?.failure ? (smtp.detail ? `${smtp.failure}: ${smtp.detail}` : smtp.failure) : null,
            attempts: smtp?.attempts ?? 0,
            tls: smtp?.tls ?? false,
            dns_failure: facts.dnsProblem?.detail ?? (route.kind === 'unknown' ? route.error : smtp?.failure === 'dns' ? (smtp.detail ?? null) : null),
            control_code: smtp?.controlReply?.code ?? null,
            control_enhanced_code: smtp?.controlReply?.enhanced ?? null,
            control_message: smtp?.controlReply?.message.slice(0, MAX_MESSAGE) ?? null,
            postmaster_code: smtp?.postmasterReply?.code ?? null,
            postmaster_message: smtp?.postmasterReply?.message.slice(0, MAX_MESSAGE) ?? null,
          },
  };
}

/** What is known of an address before any lookup: its syntax. */
export function initialFacts(email: string): Facts {
  return {
    email,
    syntax: checkSyntax(email),
    disposable: false,
    role: false,
    free: false,
    didYouMean: null,
    route: null,
    mxHost: null,
    smtp: null,
    timedOut: false,
    mailboxProvider: null,
    dnsProblem: null,
  };
}

/** An address whose verification broke off (a bug, not an answer): unknown, never a guess. */
export function unexpectedErrorVerdict(email: string): Verdict {
  return decideVerdict(initialFacts(email));
}

function decideShape(facts: Facts): Shape {
  const { syntax, route, smtp } = facts;
  if (!syntax.ok) return { ...UNDELIVERABLE, reason: 'invalid_email', confidence: 99 };
  if (facts.disposable) {
    return { reason: 'disposable_email', status: 'risky', valid: true, deliverable: false, risk: 'high', score: 20, confidence: 90 };
  }
  if (facts.timedOut) return { ...UNKNOWN, reason: 'timeout', subReason: 'timeout' };
  if (facts.internalFailure !== undefined) return { ...UNKNOWN, reason: 'unexpected_error', subReason: 'verifier_unavailable' };
  if (route === null) return { ...UNKNOWN, reason: 'unexpected_error', subReason: 'unexpected_error' };
  // set only where a verdict would rest on a denial: that denial is worth nothing
  if (facts.dnsProblem?.kind === 'resolver_unreliable') return { ...UNKNOWN, reason: 'unexpected_error', subReason: 'resolver_unreliable' };
  switch (route.kind) {
    case 'nxdomain':
      return { ...UNDELIVERABLE, reason: 'invalid_domain', confidence: 95 };
    case 'null_mx':
    case 'no_mail':
      return { ...UNDELIVERABLE, reason: 'no_mx', confidence: 95 };
    case 'unknown':
      return { ...UNKNOWN, reason: route.error === 'ETIMEOUT' ? 'timeout' : 'unexpected_error', subReason: 'dns_failure' };
  }
  // RFC 5321 5.1: an MX host without an address cannot take mail; a sender's MTA bounces it
  if (facts.dnsProblem?.kind === 'mx_unresolvable') return { ...UNDELIVERABLE, reason: 'no_mx', confidence: 90, subReason: 'mx_unresolvable' };
  if (!smtp) return { ...UNKNOWN, reason: 'unexpected_error', subReason: 'unexpected_error' };
  switch (smtp.failure) {
    case 'timeout':
      return { ...UNKNOWN, reason: 'timeout', subReason: 'timeout' };
    case 'no_connect':
      return { ...UNKNOWN, reason: 'no_connect', subReason: 'no_connect' };
    case 'refused_private':
      return { ...UNKNOWN, reason: 'no_connect', subReason: 'private_address' };
    case 'dropped':
      return { ...UNKNOWN, reason: 'unavailable_smtp', subReason: 'connection_dropped' };
    case 'protocol':
      return { ...UNKNOWN, reason: 'unavailable_smtp', subReason: 'protocol_error' };
    case 'tls':
      return { ...UNKNOWN, reason: 'unavailable_smtp', subReason: 'tls_failed' };
    case 'dns':
      return { ...UNKNOWN, reason: 'no_connect', subReason: 'dns_failure' };
  }
  const unavailable = (subReason: SubReason): Shape => ({ ...UNKNOWN, reason: 'unavailable_smtp', subReason });
  switch (smtp.meaning) {
    // an unclear reply the made-up address's identical rejection settled: less sure than words
    case 'rejected':
      return { ...UNDELIVERABLE, reason: 'rejected_email', confidence: smtp.settled ? 80 : 95 };
    // the mailbox exists; mail bounces until its owner empties it (often an abandoned one)
    case 'full':
      return { reason: 'low_quality', status: 'risky', valid: true, deliverable: false, risk: 'medium', score: 50, confidence: 70, subReason: 'mailbox_full' };
    // X.3.x is the mail system, not a greylist: postscreen answers RCPT from a client that just
    // passed its after-220 tests "450 4.3.2 Service currently unavailable" (come back, you are known now)
    case 'transient':
      return unavailable(smtp.subReason ?? ((smtp.stage ?? 'rcpt') === 'rcpt' && !smtp.reply?.enhanced?.startsWith('4.3.') ? 'greylisted' : 'try_again_later'));
    case 'backoff':
      return unavailable('throttled');
    case 'blocked':
      return unavailable(smtp.reply?.enhanced === '5.6.7' ? 'smtputf8_unsupported' : (smtp.subReason ?? 'blocked_by_policy'));
    // a rejection that names no one, or that the made-up address's reply contradicts
    case 'unclear':
      return unavailable(smtp.subReason ?? 'unclear_rejection');
    case 'accepted':
      break;
    default:
      return unavailable('unexpected_error');
  }
  // an edge that accepts every recipient: its 250 proves the mailbox only if it refused the made-up one
  if (facts.mailboxProvider?.acceptsAllAtEdge && smtp.catchAll !== false) return unavailable('provider_unverifiable');
  if (smtp.catchAll) {
    return { reason: 'accept_all', status: 'catch-all', valid: true, deliverable: false, risk: 'medium', score: 60, confidence: 50 };
  }
  if (facts.role) {
    return { reason: 'role_account', status: 'role-based', valid: true, deliverable: true, risk: 'medium', score: 80, confidence: 80 };
  }
  // catchAll null: the made-up address got no clear answer, so acceptance proves less
  if (smtp.catchAll === null) {
    return {
      reason: 'accepted_email',
      status: 'deliverable',
      valid: true,
      deliverable: true,
      risk: 'medium',
      score: 80,
      confidence: 70,
      subReason: 'catch_all_unknown',
    };
  }
  return { reason: 'accepted_email', status: 'deliverable', valid: true, deliverable: true, risk: 'low', score: 95, confidence: 95 };
}
