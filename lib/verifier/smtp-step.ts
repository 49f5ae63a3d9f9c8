import { randomBytes } from 'node:crypto';
import { untilDeadline } from './abort';
import { weighControl } from './control';
import type { MailHost } from './dns';
import { isPrivateAddress } from './net';
import { backoffSubject, type Pacing, type Politeness } from './politeness';
import type { MailboxProvider } from './providers';
import { readReply } from './reply';
import type { Scheduler } from './scheduler';
import { probeMailbox, type SmtpReply } from './smtp';
import type { SmtpFacts } from './verdict';
import type { VerifierDeps } from './verifier-deps';

/** Where a conversation goes: its politeness key (`provider:google`, `mx:<host>`) and that key's pacing. */
export interface Target {
  key: string;
  pacing: Pacing;
}

/** The SMTP step's answer: what the conversation learnt, or the ms left of a 421 back-off met while it queued. */
export type SmtpStep = (
  hosts: MailHost[],
  address: string,
  domain: string,
  target: Target,
  provider: MailboxProvider | null,
  signal?: AbortSignal,
) => Promise<SmtpFacts | number>;

/**
 * The SMTP step of one verifier, with what it remembers per domain for as long as the verifier
 * lives: catch-all answers, the made-up address's reply and postmaster's reply (control.ts).
 */
export function createSmtpStep(deps: VerifierDeps, politeness: Politeness, scheduler: Scheduler): SmtpStep {
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

  /** A conversation in the process's queue and under a politeness lease, its catch-all answer, the rejection weighed. */
  return async function smtpStep(hosts, address, domain, target, provider, signal) {
    const { key } = target;
    const smtp = await untilDeadline(
      scheduler.run(key, async () => {
        const permit = await politeness.acquire(target, signal);
        const closing: Promise<void>[] = [];
        try {
          const [left] = await politeness.heldFor([backoffSubject(key)]); // a 421 may have arrived while this one queued
          return left > 0 ? left : await conversation(hosts, address, domain, closing, signal);
        } finally {
          // the server counts a connection until it closes, after our QUIT: so does the lease
          void Promise.all(closing).finally(() => permit.release());
        }
      }),
      signal,
    );
    if (typeof smtp === 'number') return smtp;
    if (smtp.catchAll === null && smtp.catchAllAsked) smtp.catchAll = await untilDeadline(smtp.catchAllAsked, signal);
    delete smtp.catchAllAsked;
    const replied = smtp.meaning;
    weigh(smtp, address, domain);
    // a refusal postmaster got too is about us: counted apart, a sign of an egress problem (lib/egress/refusals.ts)
    if (smtp.attempts > 0)
      deps.onConversation?.({
        target: key,
        provider: provider?.id ?? null,
        outcome: smtp.postmasterRefused ? 'postmaster_refused' : (replied ?? smtp.failure ?? 'unclassified'),
      });
    return smtp;
  };

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
}
