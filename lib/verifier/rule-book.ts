// The vocabulary of allow and block rules (docs/rules-and-usage.md); rule-match.ts matches them.

export const RULE_ACTIONS = ['allow', 'block'] as const;
export const RULE_MATCHES = ['email', 'domain', 'mx', 'tld'] as const;
export type RuleAction = (typeof RULE_ACTIONS)[number];
export type RuleMatch = (typeof RULE_MATCHES)[number];

export interface Rule {
  id: string;
  action: RuleAction;
  match: RuleMatch;
  value: string;
}

/** An account's rules indexed by level and value: one Map lookup per level and address. */
export interface RuleBook {
  readonly size: number;
  readonly byLevel: Record<RuleMatch, Map<string, Rule>>;
}
