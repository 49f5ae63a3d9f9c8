import { db, type Database } from '../db/client';
import { env, type Env } from '../config/env';
import { createDnsResolver, parseDnsServers, type DnsResolver } from '../verifier/dns';
import { egressOf } from '../egress/egress';
import { countConversation, observedPoliteness } from '../metrics/observe';
import { notePostmasterRefusal } from '../egress/refusals';
import { createLocalPoliteness, forEgress, type Politeness } from '../verifier/politeness';
import { DEFAULT_PER_MINUTE, pacingResolver } from '../verifier/profiles';
import type { Verifier } from '../verifier/types';
import { createVerifier } from '../verifier/verify';
import { createPgPoliteness } from '../db/politeness-pg';
import { processSlot } from '../config/process-slots';
import { byDialect } from '../db/sql';

/**
 * Production verifiers built from the environment. Each is kept with the configuration it was built
 * from (env() gives the same object while the values stay): once the environment changes (a test
 * changed it), the next caller gets one of the new configuration, as with the egress monitor
 * (lib/egress/state.ts).
 */

// One verifier per job, so a domain's catch-all result is probed once per job. The oldest is
// forgotten past 32; a chunk still running on it keeps its reference and finishes.
const MAX_JOB_VERIFIERS = 32;

// Single checks share one verifier (its per-domain limits then hold across requests); it is
// renewed every few minutes so catch-all answers do not live forever. Checks already handed to
// the old one finish on it.
const SHARED_LIFETIME_MS = 5 * 60_000;

interface Built {
  config: Env;
  resolver: DnsResolver;
  shared?: { verifier: Verifier; until: number };
  perJob: Map<string, Verifier>;
}
let built: Built | undefined;

function current(): Built {
  const config = env();
  if (built?.config !== config) {
    built = {
      config,
      resolver: createDnsResolver({ servers: parseDnsServers(config.EV_DNS_SERVERS), canaries: parseDnsServers(config.EV_DNS_CANARIES) }),
      perJob: new Map(),
    };
  }
  return built;
}

// Leases, pace, 421 back-offs and greylist holds: shared by every verifier of the process, and on
// PostgreSQL by every process of the deployment (its workers and web servers); SQLite is one
// machine and keeps them in the process. Kept while the database it is built on stays.
const politenessSlot = processSlot<{ database: Promise<Database>; politeness: Politeness; end(): Promise<void> }>('politeness');

/** how long a politeness lease outlives its process's last renewal (renewed every 1.5 s while held) */
const POLITENESS_LEASE_MS = 6_000;

function sharedPoliteness(): Politeness {
  const database = db();
  const held = politenessSlot.value;
  if (held?.database === database) return held.politeness;
  void held?.end().catch(() => undefined);
  const chosen = database.then(({ dialect, url }) =>
    byDialect(dialect, {
      postgres: () => createPgPoliteness({ url, leaseMs: POLITENESS_LEASE_MS }),
      sqlite: () => ({ ...createLocalPoliteness(), end: async () => undefined }),
    })(),
  );
  const politeness: Politeness = {
    acquire: async (target, signal) => (await chosen).acquire(target, signal),
    hold: async (subject, ms) => (await chosen).hold(subject, ms),
    heldFor: async (subjects) => (await chosen).heldFor(subjects),
  };
  politenessSlot.value = { database, politeness, end: async () => (await chosen).end() };
  return politeness;
}

/** The process's resolver (also asked by the egress check whether it can be believed). */
export function dns(): DnsResolver {
  return current().resolver;
}

export function newProductionVerifier(): Verifier {
  const config = env();
  const egress = egressOf(config);
  const count = countConversation(egress.key);
  return createVerifier({
    dns: dns(),
    smtp: {
      port: config.EV_SMTP_PORT,
      heloName: egress.heloName,
      localAddress: egress.sourceIp,
      mailFrom: config.EV_MAIL_FROM,
      connectTimeoutMs: config.EV_SMTP_CONNECT_TIMEOUT_MS,
      commandTimeoutMs: config.EV_SMTP_COMMAND_TIMEOUT_MS,
      conversationTimeoutMs: config.EV_SMTP_CONVERSATION_TIMEOUT_MS,
      proxy: config.EV_SMTP_PROXY,
    },
    allowPrivateNetworks: config.EV_ALLOW_PRIVATE_NETWORKS,
    perDomainConcurrency: config.EV_PER_DOMAIN_CONCURRENCY,
    pacing: pacingResolver(config.EV_SMTP_PACING, { concurrency: config.EV_PER_DOMAIN_CONCURRENCY, perMinute: DEFAULT_PER_MINUTE }),
    // the shared store, as this process's egress sees it: budgets per (egress, target)
    politeness: observedPoliteness(forEgress(sharedPoliteness(), egress.key), egress.key),
    onConversation: (event) => {
      count(event);
      if (event.outcome === 'postmaster_refused') notePostmasterRefusal(egress.key, event.target);
    },
    globalConcurrency: config.EV_GLOBAL_CONCURRENCY,
    greylistRetryMs: config.EV_GREYLIST_RETRY_MS,
    transientRetryMs: config.EV_TRANSIENT_RETRY_MS,
    backoffMs: config.EV_DOMAIN_BACKOFF_MS,
  });
}

export function productionVerifier(): Verifier {
  const state = current();
  const now = Date.now();
  if (!state.shared || state.shared.until < now) state.shared = { verifier: newProductionVerifier(), until: now + SHARED_LIFETIME_MS };
  return state.shared.verifier;
}

export function jobVerifier(jobId: string): Verifier {
  const { perJob } = current();
  let verifier = perJob.get(jobId);
  if (!verifier) {
    if (perJob.size >= MAX_JOB_VERIFIERS) perJob.delete(perJob.keys().next().value!);
    verifier = newProductionVerifier();
    perJob.set(jobId, verifier);
  }
  return verifier;
}
