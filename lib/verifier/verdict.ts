import type { MailRoute } from './dns';
import type { ReplyMeaning } from './reply';
import type { SmtpReply } from './smtp';
import { checkSyntax, type SyntaxResult } from './syntax';
import type { Reason, RiskLevel, Verdict, VerdictStatus } from './types';

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
}

export interface SmtpFacts {
  /** what the deciding reply meant; null when the server gave no reply */
  meaning: ReplyMeaning | null;
  /**
   * why there was no reply: refused_private = the MX resolves to a private address; protocol = the
   * server broke a limit of SMTP_LIMITS (lib/verifier/smtp.ts) and the conversation was cut off
   */
  failure: 'no_connect' | 'timeout' | 'dropped' | 'protocol' | 'refused_private' | null;
  /** what went wrong, when known ("a reply of more than 100 lines") */
  detail?: string | null;
  reply: SmtpReply | null;
  catchAll: boolean | null;
  attempts: number;
}

interface Shape {
  reason: Reason; status: VerdictStatus; valid: boolean; deliverable: boolean;
  risk: RiskLevel; score: number; confidence: number;
}

const MAX_MESSAGE = 500;

const UNDELIVERABLE = { status: 'undeliverable', valid: false, deliverable: false, risk: 'high', score: 0 } as const;
const UNKNOWN = { status: 'unknown', valid: true, deliverable: false, risk: 'unknown', score: 40, confidence: 20 } as const;

/** The one place facts become a verdict. Scores follow the sandbox table in the README ("Sandbox mode"). */
export function decideVerdict(facts: Facts): Verdict {
  const shape = decideShape(facts);
  const { syntax, route, smtp } = facts;
  const provider = syntax.ok ? syntax.asciiDomain : facts.email.slice(facts.email.lastIndexOf('@') + 1).toLowerCase();
  return {
    email: facts.email,
    valid: shape.valid,
    deliverable: shape.deliverable,
    risk_level: shape.risk,
    reason: shape.reason,
    confidence: shape.confidence,
    status: shape.status,
    score: shape.score,
    provider,
    details: {
      syntax_valid: syntax.ok,
      domain_exists: route !== null && route.kind !== 'nxdomain' && route.kind !== 'unknown',
      // an implicit MX (A record only) still is a mail host
      mx_record: route?.kind === 'mx' || route?.kind === 'implicit',
      smtp_valid: smtp?.meaning === 'accepted',
    },
    disposable: facts.disposable,
    role: facts.role,
    free: facts.free,
    catch_all: shape.reason === 'accept_all',
    did_you_mean: facts.didYouMean,
    evidence: route === null ? null : {
      mx_host: facts.mxHost,
      smtp_code: smtp?.reply?.code ?? null,
      smtp_enhanced_code: smtp?.reply?.enhanced ?? null,
      // a server's text is kept short: every stored verdict carries it
      smtp_message: smtp?.reply?.message.slice(0, MAX_MESSAGE) ?? null,
      smtp_failure: smtp?.failure ? (smtp.detail ? `${smtp.failure}: ${smtp.detail}` : smtp.failure) : null,
      attempts: smtp?.attempts ?? 0,
    },
  };
}

/** What is known of an address before any lookup: its syntax. */
export function initialFacts(email: string): Facts {
  return {
    email, syntax: checkSyntax(email), disposable: false, role: false, free: false,
    didYouMean: null, route: null, mxHost: null, smtp: null, timedOut: false,
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
  if (facts.timedOut) return { ...UNKNOWN, reason: 'timeout' };
  if (route === null) return { ...UNKNOWN, reason: 'unexpected_error' };
  switch (route.kind) {
    case 'nxdomain': return { ...UNDELIVERABLE, reason: 'invalid_domain', confidence: 95 };
    case 'null_mx':
    case 'no_mail': return { ...UNDELIVERABLE, reason: 'no_mx', confidence: 95 };
    case 'unknown': return { ...UNKNOWN, reason: route.error === 'ETIMEOUT' ? 'timeout' : 'unexpected_error' };
  }
  if (!smtp) return { ...UNKNOWN, reason: 'unexpected_error' };
  if (smtp.failure === 'timeout') return { ...UNKNOWN, reason: 'timeout' };
  if (smtp.failure === 'no_connect' || smtp.failure === 'refused_private') return { ...UNKNOWN, reason: 'no_connect' };
  switch (smtp.meaning) {
    case 'rejected': return { ...UNDELIVERABLE, reason: 'rejected_email', confidence: 95 };
    case 'accepted': break;
    default: return { ...UNKNOWN, reason: 'unavailable_smtp' }; // dropped, greylisted, blocked
  }
  if (smtp.catchAll) {
    return { reason: 'accept_all', status: 'catch-all', valid: true, deliverable: false, risk: 'medium', score: 60, confidence: 50 };
  }
  if (facts.role) {
    return { reason: 'role_account', status: 'role-based', valid: true, deliverable: true, risk: 'medium', score: 80, confidence: 80 };
  }
  // catchAll null: the made-up address got no clear answer, so acceptance proves a bit less
  const confidence = smtp.catchAll === false ? 95 : 85;
  return { reason: 'accepted_email', status: 'deliverable', valid: true, deliverable: true, risk: 'low', score: 95, confidence };
}
