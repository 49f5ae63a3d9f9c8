import type { Rule, RuleBook, RuleMatch } from './rule-book';
import { checkSyntax } from './syntax';
import type { Verdict } from './types';

export { RULE_ACTIONS, RULE_MATCHES, type Rule, type RuleAction, type RuleBook, type RuleMatch } from './rule-book';

/**
 * Allow and block rules (docs/rules-and-usage.md): an account's own say over an address, decided
 * before any probe. The most specific level that matches wins (email, then domain, then MX host,
 * then TLD); at one level a block beats an allow. Plain data and pure functions: the verifier core
 * and the sandbox engine apply the same book.
 */

const asciiLower = (text: string) => text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());

/**
 * The one spelling a rule is stored and compared in, or an error message: an address as syntax.ts
 * normalises it with ASCII letters lower-cased (one mailbox whatever its case, as the cache does),
 * domains and MX hosts in A-labels, a TLD without its dot.
 */
export function normalizeRuleValue(match: RuleMatch, raw: string): { value: string } | { error: string } {
  const text = raw.trim();
  if (match === 'email') {
    const syntax = checkSyntax(text);
    return syntax.ok ? { value: emailKey(syntax) } : { error: `not an address (${syntax.reason})` };
  }
  const name = text.replace(/^\*?\./, '').replace(/\.$/, '');
  const probe = checkSyntax(`x@${name}`);
  if (!probe.ok) return { error: `not a ${match === 'tld' ? 'top-level domain' : 'domain name'}` };
  if (match === 'tld' && probe.asciiDomain.includes('.')) return { error: 'a top-level domain has no dot (`test`, `xn--p1ai`)' };
  return { value: probe.asciiDomain };
}

function emailKey(address: Address): string {
  return `${asciiLower(address.normalized.slice(0, address.normalized.lastIndexOf('@')))}@${address.asciiDomain}`;
}

/** Builds the book; at one level and value a block replaces an allow. */
export function ruleBook(rules: Iterable<Rule>): RuleBook {
  const byLevel = { email: new Map(), domain: new Map(), mx: new Map(), tld: new Map() } as RuleBook['byLevel'];
  let size = 0;
  for (const rule of rules) {
    const level = byLevel[rule.match];
    const held = level.get(rule.value);
    if (!held || (held.action === 'allow' && rule.action === 'block')) level.set(rule.value, rule);
    size++;
  }
  return { size, byLevel };
}

export const EMPTY_BOOK: RuleBook = ruleBook([]);

type Address = { normalized: string; asciiDomain: string };

/**
 * The rule that decides this address, or null. `mxHosts` null: the MX hosts are not known yet, so
 * a TLD rule cannot decide while the book has MX rules (one of them would be more specific).
 */
export function matchRule(book: RuleBook, address: Address, mxHosts: readonly string[] | null): Rule | null {
  if (book.size === 0) return null;
  const { email, domain, mx, tld } = book.byLevel;
  const byAddress = email.size > 0 ? email.get(emailKey(address)) : undefined;
  if (byAddress) return byAddress;
  const byDomain = domain.get(address.asciiDomain);
  if (byDomain) return byDomain;
  if (mx.size > 0) {
    if (mxHosts === null) return null;
    const byMx = mxRule(mx, mxHosts);
    if (byMx) return byMx;
  }
  return tld.get(address.asciiDomain.slice(address.asciiDomain.lastIndexOf('.') + 1)) ?? null;
}

/** An MX rule names a host or a domain its hosts end in (`google.com` matches `aspmx.l.google.com`). */
function mxRule(mx: Map<string, Rule>, hosts: readonly string[]): Rule | null {
  let found: Rule | null = null;
  for (const host of hosts) {
    let name = asciiLower(host).replace(/\.$/, '');
    for (;;) {
      const rule = mx.get(name);
      if (rule && (!found || (found.action === 'allow' && rule.action === 'block'))) found = rule;
      const dot = name.indexOf('.');
      if (dot < 0) break;
      name = name.slice(dot + 1);
    }
  }
  return found;
}

/** Whether the book can only decide this address once its MX hosts are known. */
export function needsMxHosts(book: RuleBook): boolean {
  return book.byLevel.mx.size > 0;
}

/** The verdict a rule gives: deliverable or undeliverable because the account said so. */
export function ruledVerdict(verdict: Verdict, rule: Rule): Verdict {
  const allow = rule.action === 'allow';
  return {
    ...verdict,
    valid: allow,
    deliverable: allow,
    risk_level: allow ? 'low' : 'high',
    reason: allow ? 'allowlisted' : 'blocklisted',
    sub_reason: null,
    confidence: 100,
    status: allow ? 'deliverable' : 'undeliverable',
    score: allow ? 100 : 0,
    catch_all: false,
    evidence: null,
    rule_id: rule.id,
  };
}

/** Rules decided this verdict: it is not charged (lib/results/chargeable.ts). */
export const RULED_REASONS = ['allowlisted', 'blocklisted'] as const;
