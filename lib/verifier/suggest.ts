import { POPULAR_DOMAINS, run } from '@zootools/email-spell-checker';
import { commonProviders } from './lists';

const knownProviders = new Set([...POPULAR_DOMAINS, ...commonProviders]);

/**
 * The checker's corrected domain by domain. Its answer depends on the domain alone when the local
 * part is plain (printable ASCII, no `@`): it splits at the last `@` and measures the domain against
 * every popular one, which was a quarter of a 1M sandbox job's CPU (docs/benchmarks.md). A list's
 * addresses share few domains; the map is emptied when full.
 */
const byDomain = new Map<string, string | null>();
const BY_DOMAIN_MAX = 20_000;
const PLAIN_LOCAL = /^[\x21-\x3f\x41-\x7e]+$/;

function correctedDomain(local: string, domain: string): string | null {
  const suggestion = run({ email: `${local}@${domain}` });
  if (!suggestion || suggestion.domain === domain || !knownProviders.has(suggestion.domain)) return null;
  return suggestion.domain;
}

/**
 * "jorge@gmaik.co" → "jorge@gmail.com". Only corrections towards a well-known provider are
 * offered: the checker also "fixes" any unfamiliar TLD (alice@example.test → example.de), and a
 * company's own domain is not a typo of a bigger one.
 */
export function suggestCorrection(local: string, domain: string): string | null {
  if (knownProviders.has(domain)) return null;
  if (!PLAIN_LOCAL.test(local)) {
    const corrected = correctedDomain(local, domain);
    return corrected === null ? null : `${local}@${corrected}`;
  }
  let corrected = byDomain.get(domain);
  if (corrected === undefined) {
    if (byDomain.size >= BY_DOMAIN_MAX) byDomain.clear();
    corrected = correctedDomain('x', domain);
    byDomain.set(domain, corrected);
  }
  return corrected === null ? null : `${local}@${corrected}`;
}
