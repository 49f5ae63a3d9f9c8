import { POPULAR_DOMAINS, run } from '@zootools/email-spell-checker';
import { commonProviders } from './lists';

const knownProviders = new Set([...POPULAR_DOMAINS, ...commonProviders]);

/**
 * "jorge@gmaik.co" → "jorge@gmail.com". Only corrections towards a well-known provider are
 * offered: the checker also "fixes" any unfamiliar TLD (alice@example.test → example.de), and a
 * company's own domain is not a typo of a bigger one.
 */
export function suggestCorrection(local: string, domain: string): string | null {
  if (knownProviders.has(domain)) return null;
  const suggestion = run({ email: `${local}@${domain}` });
  if (!suggestion || suggestion.domain === domain || !knownProviders.has(suggestion.domain)) return null;
  return `${local}@${suggestion.domain}`;
}
