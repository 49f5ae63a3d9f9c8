import { env } from '../config/env';
import { needsMxHosts, type RuleBook } from '../verifier/rule-match';
import { sandboxMxHost } from '../verifier/sandbox';
import { checkSyntax } from '../verifier/syntax';
import type { Verdict } from '../verifier/types';
import { verdictByRules } from '../verifier/facts';
import { dns } from './production';

/**
 * The account's rules ahead of the quota: single checks and instant lists answer a ruled address
 * without reserving (so without a 402 on an empty account). An MX rule needs the MX hosts: they
 * are asked here, once, only when the book holds MX rules and no more specific rule decided.
 */
export async function verdictOfRules(email: string, rules: RuleBook, sandbox: boolean): Promise<Verdict | null> {
  const early = verdictByRules(email, rules);
  if (early || !needsMxHosts(rules)) return early;
  const syntax = checkSyntax(email);
  if (!syntax.ok) return null;
  if (sandbox || env().EV_PRODUCTION_ENGINE === 'sandbox') return verdictByRules(email, rules, [sandboxMxHost(syntax.asciiDomain)]);
  const route = await dns()
    .mailRoute(syntax.asciiDomain)
    .catch(() => null);
  // DNS failed: no rule can be said to decide; the verifier asks again and answers what it finds
  if (!route || route.kind === 'unknown') return null;
  return verdictByRules(email, rules, route.kind === 'mx' || route.kind === 'implicit' ? route.hosts.map((host) => host.exchange) : []);
}
