import { isDisposableDomain, isFreeProvider, isRoleAccount } from './lists';
import { matchRule, ruledVerdict, type RuleBook } from './rule-match';
import { suggestCorrection } from './suggest';
import { checkSyntax } from './syntax';
import type { Verdict } from './types';
import { decideVerdict, initialFacts, type Facts } from './verdict';

/** Syntax and the lists: what is known of an address without asking the network. */
export function listFacts(email: string): Facts {
  const facts = initialFacts(email);
  const { syntax } = facts;
  if (!syntax.ok) return facts;
  facts.disposable = isDisposableDomain(syntax.asciiDomain);
  facts.role = isRoleAccount(syntax.local);
  facts.free = isFreeProvider(syntax.asciiDomain);
  facts.didYouMean = suggestCorrection(syntax.local, syntax.asciiDomain);
  return facts;
}

/**
 * The verdict of the rule that decides this address, or null. Without `mxHosts` only the rules
 * that need no DNS can decide (email, domain, and TLD when the book has no MX rules).
 */
export function verdictByRules(email: string, rules: RuleBook, mxHosts: readonly string[] | null = null): Verdict | null {
  if (rules.size === 0) return null;
  const syntax = checkSyntax(email);
  const rule = syntax.ok ? matchRule(rules, syntax, mxHosts) : null;
  // the lists and the typo suggestion only for an address a rule decides
  return rule ? ruledVerdict(decideVerdict(listFacts(email)), rule) : null;
}
