import type { DnsResolver } from './dns';
import type { Pacing, Politeness } from './politeness';
import type { SocksProxy } from './proxy';

/** What a verifier is given of the outside world (lib/checks/production.ts builds it from the environment). */
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
