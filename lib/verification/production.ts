import { env } from '../env';
import { createDnsResolver, parseDnsServers, type DnsResolver } from '../verifier/dns';
import type { Verifier } from '../verifier/types';
import { createVerifier } from '../verifier/verify';

/** Production verifiers built from the environment. */

let resolver: DnsResolver | undefined;

function dns(): DnsResolver {
  resolver ??= createDnsResolver({ servers: parseDnsServers(env().EV_DNS_SERVERS) });
  return resolver;
}

export function newProductionVerifier(): Verifier & { close(): void } {
  const config = env();
  return createVerifier({
    dns: dns(),
    smtp: {
      port: config.EV_SMTP_PORT,
      heloName: config.EV_HELO_NAME,
      mailFrom: config.EV_MAIL_FROM,
      connectTimeoutMs: config.EV_SMTP_CONNECT_TIMEOUT_MS,
      commandTimeoutMs: config.EV_SMTP_COMMAND_TIMEOUT_MS,
      proxy: config.EV_SMTP_PROXY,
    },
    allowPrivateNetworks: config.EV_ALLOW_PRIVATE_NETWORKS,
    perDomainConcurrency: config.EV_PER_DOMAIN_CONCURRENCY,
    globalConcurrency: config.EV_GLOBAL_CONCURRENCY,
    greylistRetryMs: config.EV_GREYLIST_RETRY_MS,
    backoffMs: config.EV_DOMAIN_BACKOFF_MS,
  });
}

// Single checks share one verifier (its per-domain limits then hold across requests); it is
// renewed every few minutes so catch-all answers and back-offs do not live forever.
const SHARED_LIFETIME_MS = 5 * 60_000;
let shared: { verifier: Verifier & { close(): void }; until: number } | undefined;

export function productionVerifier(): Verifier {
  const now = Date.now();
  if (!shared || shared.until < now) {
    shared?.verifier.close();
    shared = { verifier: newProductionVerifier(), until: now + SHARED_LIFETIME_MS };
  }
  return shared.verifier;
}

// One verifier per job, so a domain's catch-all result is probed once per job.
const perJob = new Map<string, Verifier & { close(): void }>();

export function jobVerifier(jobId: string): Verifier {
  let verifier = perJob.get(jobId);
  if (!verifier) {
    if (perJob.size >= 32) {
      const [oldest, old] = perJob.entries().next().value!;
      old.close();
      perJob.delete(oldest);
    }
    verifier = newProductionVerifier();
    perJob.set(jobId, verifier);
  }
  return verifier;
}

/** Only tests change the environment under a running process. */
export function resetProductionVerifiers(): void {
  shared?.verifier.close();
  shared = undefined;
  resolver = undefined;
  for (const verifier of perJob.values()) verifier.close();
  perJob.clear();
}
