import { DeadlinePassed, untilDeadline } from './abort';
import { listFacts } from './facts';
import { backoffSubject, createLocalPoliteness, greylistSubject, politeKey } from './politeness';
import { mailboxProviderOf } from './providers';
import { matchRule, ruledVerdict, type RuleBook } from './rule-match';
import { createScheduler } from './scheduler';
import { createSmtpStep } from './smtp-step';
import type { Verifier, VerifyOptions, VerifyOutcome } from './types';
import { decideVerdict, type Facts } from './verdict';
import type { VerifierDeps } from './verifier-deps';

export type { ConversationEvent, VerifierDeps } from './verifier-deps';

/** A signal that fires after `ms`, for verify(email, { signal: deadline(10_000) }). */
export function deadline(ms: number): AbortSignal {
  return AbortSignal.timeout(ms);
}

/** The verdict the facts make; `retryAfterMs`: when asking again may give a better one. */
function verdictOf(facts: Facts, retryAfterMs?: number): VerifyOutcome {
  return retryAfterMs === undefined ? { verdict: decideVerdict(facts) } : { verdict: decideVerdict(facts), retryAfterMs };
}

/** The account's rule that decides this address, given the MX hosts when known (null: not yet asked). */
function ruledOutcome(facts: Facts, rules: RuleBook | undefined, mxHosts: readonly string[] | null): VerifyOutcome | null {
  const rule = rules && facts.syntax.ok ? matchRule(rules, facts.syntax, mxHosts) : null;
  return rule ? { verdict: ruledVerdict(decideVerdict(facts), rule) } : null;
}

/** A 421 back-off holds the target: no conversation, asked again when it ends. */
function backedOff(facts: Facts, waitMs: number): VerifyOutcome {
  return verdictOf({ ...facts, smtp: { meaning: 'backoff', failure: null, reply: null, catchAll: null, attempts: 0 } }, Math.max(waitMs, 1));
}

/** Asked again before its retry time, a greylisting server would only restart its clock. */
function stillGreylisted(facts: Facts, waitMs: number): VerifyOutcome {
  return verdictOf({ ...facts, smtp: { meaning: 'transient', failure: null, reply: null, catchAll: null, attempts: 0, stage: 'rcpt' } }, Math.max(waitMs, 1));
}

/**
 * One verifier per job batch: its catch-all answers live as long as it does. It holds no socket or
 * timer between calls, so retiring it is dropping the reference: work already handed to it finishes.
 * verify() is a pipeline of named steps, each taking the facts so far and giving them back with what
 * it learnt, or the answer when it decides: syntax and lists, rules, DNS, rules on the MX hosts,
 * SMTP, verdict.
 */
export function createVerifier(deps: VerifierDeps): Verifier {
  const now = deps.now ?? Date.now;
  const pacingOf = deps.pacing ?? (() => ({ concurrency: deps.perDomainConcurrency, perMinute: 0 }));
  const politeness = deps.politeness ?? createLocalPoliteness(now);
  // the process's own queue (longest backlog first) in front of the politeness leases, so a
  // conversation waits for a lease only when this process could start one
  const scheduler = createScheduler({ perKey: (key) => pacingOf(key).concurrency, global: deps.globalConcurrency });
  const smtpStep = createSmtpStep(deps, politeness, scheduler);

  /** No mail server was asked: the verdict this makes is one the retry budget may still avoid. */
  const ourFailure = (facts: Facts) => verdictOf(facts, deps.transientRetryMs ?? 30_000);

  /** A verdict about to rest on a DNS denial: believed only from a resolver that knows the canaries. */
  async function distrustDenial(facts: Facts, what: string, signal?: AbortSignal): Promise<Facts> {
    const health = deps.dns.health ? await untilDeadline(deps.dns.health(), signal) : { lying: false as const };
    return health.lying ? { ...facts, dnsProblem: { kind: 'resolver_unreliable', detail: `${what}, but ${health.detail}` } } : facts;
  }

  /** The verdict of a conversation, with the hold it asks of every verifier sharing the politeness. */
  async function verdictWithHolds(facts: Facts, key: string, address: string): Promise<VerifyOutcome> {
    if (facts.smtp?.meaning === 'backoff') {
      const backoffMs = deps.backoffMs ?? 120_000;
      await politeness.hold(backoffSubject(key), backoffMs);
      return verdictOf(facts, backoffMs);
    }
    if (facts.smtp?.meaning === 'transient') {
      const retryMs = deps.greylistRetryMs ?? 300_000;
      const outcome = verdictOf(facts, retryMs);
      // greylisting counts from the first knock; a 4.3.x (postscreen, a busy system) may be asked again at once
      if (outcome.verdict.sub_reason === 'greylisted') await politeness.hold(greylistSubject(address), retryMs);
      return outcome;
    }
    return verdictOf(facts);
  }

  async function verify(email: string, options: VerifyOptions = {}): Promise<VerifyOutcome> {
    const { signal, rules } = options;
    // syntax, then the lists
    let facts = listFacts(email);
    const { syntax } = facts;
    if (!syntax.ok) return verdictOf(facts);
    // the account's rules decide before any probe; a disposable domain is not asked
    const early = ruledOutcome(facts, rules, null);
    if (early) return early;
    if (facts.disposable) return ruledOutcome(facts, rules, []) ?? verdictOf(facts);

    // from here each step's facts replace the last, so a deadline or a failure answers with all learnt so far
    try {
      // DNS: the mail route
      const route = await untilDeadline(deps.dns.mailRoute(syntax.asciiDomain), signal);
      facts = { ...facts, route };
      if (route.kind === 'nxdomain') facts = await distrustDenial(facts, `${syntax.asciiDomain}: NXDOMAIN`, signal);
      // a failed lookup named no MX hosts: an MX rule might have decided, so no rule is guessed at
      if (route.kind === 'unknown' || facts.dnsProblem?.kind === 'resolver_unreliable') return ourFailure(facts);
      if (route.kind !== 'mx' && route.kind !== 'implicit') return ruledOutcome(facts, rules, []) ?? verdictOf(facts);

      // the rules on the MX hosts, and who runs them
      const exchanges = route.hosts.map((host) => host.exchange);
      const byMx = ruledOutcome(facts, rules, exchanges);
      if (byMx) return byMx;
      const mxHost = exchanges[0]!;
      facts = { ...facts, mxHost, mailboxProvider: mailboxProviderOf(exchanges) };

      // SMTP, unless a 421 met by any verifier sharing the politeness, or this mailbox's greylisting, says wait
      const key = politeKey(mxHost, facts.mailboxProvider?.id);
      const target = { key, pacing: pacingOf(key) };
      const [backoffLeft, greyLeft] = await untilDeadline(politeness.heldFor([backoffSubject(key), greylistSubject(syntax.address)]), signal);
      if (backoffLeft > 0) return backedOff(facts, backoffLeft);
      if (greyLeft > 0) return stillGreylisted(facts, greyLeft);
      const smtp = await smtpStep(route.hosts, syntax.address, syntax.asciiDomain, target, facts.mailboxProvider, signal);
      if (typeof smtp === 'number') return backedOff(facts, smtp);
      facts = { ...facts, smtp };

      // the verdict
      if (smtp.mxUnresolvable) {
        // nothing was tried: DNS decided
        facts = { ...facts, smtp: { ...smtp, failure: null }, dnsProblem: { kind: 'mx_unresolvable', detail: smtp.mxUnresolvable } };
        facts = await distrustDenial(facts, smtp.mxUnresolvable, signal);
        return facts.dnsProblem?.kind === 'resolver_unreliable' ? ourFailure(facts) : verdictOf(facts);
      }
      if (smtp.failure === 'dns') return ourFailure(facts);
      if (smtp.failure === 'timeout' && signal?.aborted) facts = { ...facts, timedOut: true };
      return await verdictWithHolds(facts, key, syntax.address);
    } catch (error) {
      if (error instanceof DeadlinePassed) return verdictOf({ ...facts, timedOut: true });
      // our side failed (the politeness store's database, a bug), not the mail system: ask again
      // later; a verdict made of it says so (verifier_unavailable), never a guess
      return ourFailure({ ...facts, smtp: null, internalFailure: error instanceof Error ? error.message : String(error) });
    }
  }

  return { verify };
}
