import { randomBytes } from 'node:crypto';
import { untilAborted } from './abort';
import type { DnsResolver, MailHost } from './dns';
import { createScheduler } from './scheduler';
import { isPrivateAddress } from './net';
import { backoffSubject, createLocalPoliteness, greylistSubject, politeKey, type Pacing, type Politeness } from './politeness';
import { mailboxProviderOf } from './providers';
import { weighControl } from './control';
import { readReply } from './reply';
import type { SocksProxy } from './proxy';
import { probeMailbox, type SmtpReply } from './smtp';
import { suggestCorrection } from './suggest';
import { checkSyntax } from './syntax';
import { listFacts } from './facts';
import { matchRule, ruledVerdict } from './rule-match';
import type { Verifier, VerifyOptions, VerifyOutcome } from './types';
import { decideVerdict, type SmtpFacts } from './verdict';

export interface VerifierDeps {
  dns: DnsResolver;
  smtp: {
    port: number;
    heloName: string;
    mailFrom: string;
    connectTimeoutMs: number;
    commandTimeoutMs: number;
    /** the whole conversation with one host (default 30 s) */
    conversationTimeoutMs?: number;
    /** probe through this SOCKS5 proxy (EV_SMTP_PROXY); the MX IP is still checked here first */
    proxy?: SocksProxy | null;
    /** bind SMTP connections to this local address (EV_SMTP_SOURCE_IP) */
    localAddress?: string | null;
  };
  /** connect to MX hosts on private/loopback addresses (tests, on-premise setups only) */
  allowPrivateNetworks: boolean;
  /** open conversations per MX host when `pacing` is not given, so one big domain cannot take every slot */
  perDomainConcurrency: number;
  /** the pacing of a target key (`provider:google`, `mx:<host>`; profiles.ts): default perDomainConcurrency, unpaced */
  pacing?: (key: string) => Pacing;
  /**
   * Leases, pace, back-offs and greylist holds. Pass one to all of a process's verifiers (or one
   * backed by a shared store to every process) so the limits hold across them (default: this
   * verifier's own, in memory).
   */
  politeness?: Politeness;
  globalConcurrency: number;
  now?: () => number;
  /** when to ask a greylisting server again (default 5 min) */
  greylistRetryMs?: number;
  /**
   * when to ask again after our side failed: DNS (SERVFAIL, time-out, a resolver that lies) or the
   * politeness store (default 30 s). A job hands the address back; a single check answers at once.
   */
  transientRetryMs?: number;
  /** how long to leave a domain alone after "421 Too many connections" (default 2 min) */
  backoffMs?: number;
  /** MX hosts tried when the first cannot be reached (default 2) */
  maxMxHosts?: number;
  /** told of every conversation's outcome (metrics): its target key, provider and reply class or failure */
  onConversation?(event: ConversationEvent): void;
}

export interface ConversationEvent {
  /** `provider:google` or `mx:<host>` */
  target: string;
  provider: string | null;
  /** the reply's class (reply.ts) when the server answered, else the failure ('timeout', 'no_connect', ...) */
  outcome: string;
}

/** A signal that fires after `ms`, for verify(email, { signal: deadline(10_000) }). */
export function deadline(ms: number): AbortSignal {
  return AbortSignal.timeout(ms);
}

/**
 * One verifier per job batch: its catch-all answers live as long as it does. It holds no socket or
 * timer between calls, so retiring it is dropping the reference: work already handed to it finishes.
 * verify() reads top to bottom: syntax, lists (stop if disposable), MX, SMTP, verdict.
 */
export function createVerifier(deps: VerifierDeps): Verifier {
  const now = deps.now ?? Date.now;
  const pacingOf = deps.pacing ?? (() => ({ concurrency: deps.perDomainConcurrency, perMinute: 0 }));
  const politeness = deps.politeness ?? createLocalPoliteness(now);
  // the process's own queue (longest backlog first) in front of the politeness leases, so a
  // conversation waits for a lease only when this process could start one
  const scheduler = createScheduler({ perKey: (key) => pacingOf(key).concurrency, global: deps.globalConcurrency });
  const catchAllByDomain = new Map<string, boolean>();
  // the first conversation with a domain asks the made-up address; ones started meanwhile wait
  // for its answer instead of asking again (one catch-all probe per domain per verifier)
  const catchAllAsked = new Map<string, Promise<boolean | null>>();
  // the made-up address's reply per domain: what every rejection at that domain is weighed against
  const controlByDomain = new Map<string, { reply: SmtpReply; probe: string }>();
  // postmaster@'s reply per domain, asked once a refusal needs it: the positive control (control.ts)
  const postmasterByDomain = new Map<string, { reply: SmtpReply; address: string }>();
  // one conversation at a time may ask it: those started meanwhile do without (at most one ask per domain)
  const postmasterAsking = new Set<string>();

  async function verify(email: string, options: VerifyOptions = {}): Promise<VerifyOutcome> {
    const { signal, rules } = options;
    const facts = listFacts(email);
    const answer = (retryAfterMs?: number): VerifyOutcome =>
      retryAfterMs === undefined ? { verdict: decideVerdict(facts) } : { verdict: decideVerdict(facts), retryAfterMs };
    // the account's rules decide before any probe; MX rules once the MX hosts are known
    const ruled = (mxHosts: readonly string[] | null): VerifyOutcome | null => {
      const rule = rules && facts.syntax.ok ? matchRule(rules, facts.syntax, mxHosts) : null;
      return rule ? { verdict: ruledVerdict(decideVerdict(facts), rule) } : null;
    };
    // no mail server was asked: the verdict this would make is one the retry budget may still avoid
    const ourFailure = () => answer(deps.transientRetryMs ?? 30_000);
    const { syntax } = facts;
    if (!syntax.ok) return answer();
    const early = ruled(null);
    if (early) return early;
    if (facts.disposable) return ruled([]) ?? answer();

    try {
      facts.route = await untilDeadline(deps.dns.mailRoute(syntax.asciiDomain), signal);
      if (facts.route.kind === 'nxdomain') await distrustDenial(`${syntax.asciiDomain}: NXDOMAIN`);
      // a failed lookup named no MX hosts: an MX rule might have decided, so no rule is guessed at
      if (facts.route.kind === 'unknown' || facts.dnsProblem?.kind === 'resolver_unreliable') return ourFailure();
      if (facts.route.kind !== 'mx' && facts.route.kind !== 'implicit') return ruled([]) ?? answer();
      const hosts = facts.route.hosts;
      const byMx = ruled(hosts.map((host) => host.exchange));
      if (byMx) return byMx;
      const mxKey = hosts[0].exchange;
      facts.mxHost = mxKey;
      facts.mailboxProvider = mailboxProviderOf(hosts.map((h) => h.exchange));

      const key = politeKey(mxKey, facts.mailboxProvider?.id);
      const target = { key, pacing: pacingOf(key) };
      // a 421 met by any verifier sharing the politeness, or this mailbox's greylisting not yet over
      const [backoffLeft, greyLeft] = await untilDeadline(politeness.heldFor([backoffSubject(key), greylistSubject(syntax.address)]), signal);
      if (backoffLeft > 0) return backedOff(backoffLeft);
      if (greyLeft > 0) return stillGreylisted(greyLeft);
      const smtp = await untilDeadline(
        scheduler.run(key, async () => {
          const permit = await politeness.acquire(target, signal);
          const closing: Promise<void>[] = [];
          try {
            const [left] = await politeness.heldFor([backoffSubject(key)]); // a 421 may have arrived while this one queued
            return left > 0 ? left : await conversation(hosts, syntax.address, syntax.asciiDomain, closing, signal);
          } finally {
            // the server counts a connection until it closes, after our QUIT: so does the lease
            void Promise.all(closing).finally(() => permit.release());
          }
        }),
        signal,
      );
      if (typeof smtp === 'number') return backedOff(smtp);
      if (smtp.catchAll === null && smtp.catchAllAsked) smtp.catchAll = await untilDeadline(smtp.catchAllAsked, signal);
      delete smtp.catchAllAsked;
      const replied = smtp.meaning;
      weigh(smtp, syntax.address, syntax.asciiDomain);
      // a refusal postmaster got too is about us: counted apart, a sign of an egress problem (lib/egress/refusals.ts)
      if (smtp.attempts > 0)
        deps.onConversation?.({
          target: key,
          provider: facts.mailboxProvider?.id ?? null,
          outcome: smtp.postmasterRefused ? 'postmaster_refused' : (replied ?? smtp.failure ?? 'unclassified'),
        });
      facts.smtp = smtp;
      if (smtp.mxUnresolvable) {
        facts.smtp = { ...smtp, failure: null }; // nothing was tried: DNS decided
        facts.dnsProblem = { kind: 'mx_unresolvable', detail: smtp.mxUnresolvable };
        await distrustDenial(smtp.mxUnresolvable);
        return facts.dnsProblem?.kind === 'resolver_unreliable' ? ourFailure() : answer();
      }
      if (smtp.failure === 'dns') return ourFailure();
      if (smtp.failure === 'timeout' && signal?.aborted) facts.timedOut = true;
      if (smtp.meaning === 'backoff') {
        const backoffMs = deps.backoffMs ?? 120_000;
        await politeness.hold(backoffSubject(key), backoffMs);
        return answer(backoffMs);
      }
      if (smtp.meaning === 'transient') {
        const retryMs = deps.greylistRetryMs ?? 300_000;
        const outcome = answer(retryMs);
        // greylisting counts from the first knock; a 4.3.x (postscreen, a busy system) may be asked again at once
        if (outcome.verdict.sub_reason === 'greylisted') await politeness.hold(greylistSubject(syntax.address), retryMs);
        return outcome;
      }
      return answer();
    } catch (error) {
      if (error instanceof DeadlinePassed) {
        facts.timedOut = true;
        return answer();
      }
      // our side failed (the politeness store's database, a bug), not the mail system: ask again
      // later; a verdict made of it says so (verifier_unavailable), never a guess
      facts.smtp = null;
      facts.internalFailure = error instanceof Error ? error.message : String(error);
      return ourFailure();
    }

    /** A verdict about to rest on NXDOMAIN: believe it only from a resolver that knows the canaries. */
    async function distrustDenial(what: string): Promise<void> {
      const health = deps.dns.health ? await untilDeadline(deps.dns.health(), signal) : { lying: false as const };
      if (health.lying) facts.dnsProblem = { kind: 'resolver_unreliable', detail: `${what}, but ${health.detail}` };
    }

    function backedOff(waitMs: number): VerifyOutcome {
      facts.smtp = { meaning: 'backoff', failure: null, reply: null, catchAll: null, attempts: 0 };
      return answer(Math.max(waitMs, 1));
    }

    /** Asked again before its retry time, a greylisting server would only restart its clock. */
    function stillGreylisted(waitMs: number): VerifyOutcome {
      facts.smtp = { meaning: 'transient', failure: null, reply: null, catchAll: null, attempts: 0, stage: 'rcpt' };
      return answer(Math.max(waitMs, 1));
    }
  }

  /** A rejection of RCPT read beside the made-up address's and postmaster's replies (control.ts), all kept as evidence. */
  function weigh(smtp: SmtpFacts, address: string, domain: string): void {
    const control = controlByDomain.get(domain);
    const postmaster = postmasterByDomain.get(domain);
    if (!smtp.reply || (smtp.stage ?? 'rcpt') !== 'rcpt' || (!control && !postmaster)) return;
    smtp.controlReply = control?.reply ?? null;
    if (smtp.meaning === 'accepted') return;
    smtp.postmasterReply = postmaster?.reply ?? null;
    const addresses = [address, ...(control ? [control.probe] : []), ...(postmaster ? [postmaster.address] : [])];
    const weighed = weighControl(
      { meaning: smtp.meaning ?? 'blocked', subReason: smtp.subReason ?? null },
      smtp.reply,
      control?.reply ?? null,
      addresses,
      postmaster?.reply,
    );
    Object.assign(smtp, {
      meaning: weighed.meaning,
      subReason: weighed.subReason,
      settled: weighed.settled ?? false,
      postmasterRefused: weighed.postmasterRefused ?? false,
    });
  }

  /** Tries the MX hosts in preference order; only an unreachable host moves on to the next. */
  async function conversation(
    hosts: MailHost[],
    address: string,
    domain: string,
    closing: Promise<void>[],
    signal?: AbortSignal,
  ): Promise<SmtpFacts & { catchAllAsked?: Promise<boolean | null> }> {
    const known = catchAllByDomain.get(domain);
    const asked = known === undefined ? catchAllAsked.get(domain) : undefined;
    const asking = known === undefined && asked === undefined;
    let answerCatchAll = (_: boolean | null) => {};
    if (asking) catchAllAsked.set(domain, new Promise((resolve) => (answerCatchAll = resolve)));
    try {
      const result = await talk(hosts, address, domain, asking, closing, signal);
      return asked ? { ...result, catchAllAsked: asked } : result;
    } finally {
      if (asking) {
        catchAllAsked.delete(domain);
        answerCatchAll(catchAllByDomain.get(domain) ?? null);
      }
    }
  }

  async function talk(
    hosts: MailHost[],
    address: string,
    domain: string,
    askCatchAll: boolean,
    closing: Promise<void>[],
    signal?: AbortSignal,
  ): Promise<SmtpFacts> {
    const known = catchAllByDomain.get(domain);
    const result: SmtpFacts = { meaning: null, failure: 'no_connect', reply: null, catchAll: known ?? null, attempts: 0 };
    // host names that do not resolve cost no attempt; MTAs skip them the same way (RFC 5321 5.1)
    const unresolved: string[] = [];
    for (const host of hosts) {
      if (result.attempts >= (deps.maxMxHosts ?? 2)) break;
      const resolved = await deps.dns.addresses(host.exchange);
      if (!resolved.ok) {
        unresolved.push(
          `${host.exchange}: ${resolved.error === 'ENOTFOUND' ? 'NXDOMAIN' : resolved.error === 'ENODATA' ? 'no address records' : resolved.error}`,
        );
        continue;
      }
      const usable = deps.allowPrivateNetworks ? resolved.ips : resolved.ips.filter((ip) => !isPrivateAddress(ip));
      if (usable.length === 0) {
        result.failure = 'refused_private';
        continue;
      }
      result.attempts++;
      const catchAllProbe = askCatchAll ? `${randomBytes(8).toString('hex')}@${domain}` : null;
      const postmaster = postmasterByDomain.has(domain) || postmasterAsking.has(domain) ? null : `postmaster@${domain}`;
      if (postmaster) postmasterAsking.add(domain);
      const probe = await probeMailbox({ ...deps.smtp, ip: usable[0], mxHost: host.exchange, recipient: address, signal, catchAllProbe, postmaster }).finally(
        () => {
          if (postmaster) postmasterAsking.delete(domain);
        },
      );
      if (probe.closed) closing.push(probe.closed);
      if (probe.failure === 'no_connect') {
        result.detail = probe.detail ?? null;
        continue;
      }
      result.failure = probe.failure;
      result.detail = probe.detail ?? null;
      result.reply = probe.reply;
      result.stage = probe.stage;
      result.tls = probe.tls;
      const parties = { sender: deps.smtp.mailFrom, recipient: address, helo: deps.smtp.heloName };
      const reading = probe.reply ? readReply(probe.reply, probe.stage, parties) : null;
      if (probe.postmasterReply && postmaster) postmasterByDomain.set(domain, { reply: probe.postmasterReply, address: postmaster });
      result.meaning = reading?.meaning ?? null;
      result.subReason = reading?.subReason ?? null;
      if (probe.catchAllReply && catchAllProbe) {
        const meaning = readReply(probe.catchAllReply, 'rcpt', { ...parties, recipient: catchAllProbe }).meaning;
        controlByDomain.set(domain, { reply: probe.catchAllReply, probe: catchAllProbe });
        // a made-up address refused as missing, or in words that name no one, is no catch-all
        result.catchAll = meaning === 'accepted' ? true : meaning === 'rejected' || meaning === 'unclear' ? false : null;
        if (result.catchAll !== null) catchAllByDomain.set(domain, result.catchAll);
      }
      return result;
    }
    // every host name is denied by DNS (NXDOMAIN or no address): no MTA can deliver here
    const denied = unresolved.filter((u) => /NXDOMAIN|no address records/.test(u));
    if (result.attempts === 0 && denied.length === hosts.length) result.mxUnresolvable = denied.join('; ');
    // no host could even be looked up (SERVFAIL, time-out): DNS failed, not the domain
    else if (result.attempts === 0 && unresolved.length > 0 && result.failure === 'no_connect')
      Object.assign(result, { failure: 'dns', detail: unresolved.join('; ') });
    return result;
  }

  return { verify };
}

class DeadlinePassed extends Error {}

/** Waits for `work` until the verification's deadline, which ends the wait as DeadlinePassed. */
function untilDeadline<T>(work: Promise<T>, signal?: AbortSignal): Promise<T> {
  return untilAborted(work, signal, () => new DeadlinePassed());
}
