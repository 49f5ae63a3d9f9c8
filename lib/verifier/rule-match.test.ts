import { describe, expect, it } from 'vitest';
import { rulesFromRows } from '../sdk/src/rules';
import { matchRule, normalizeRuleValue, ruleBook, type Rule, type RuleAction, type RuleMatch } from './rule-match';
import { checkSyntax } from './syntax';

let n = 0;
const rule = (action: RuleAction, match: RuleMatch, raw: string): Rule => {
  const normalized = normalizeRuleValue(match, raw);
  if ('error' in normalized) throw new Error(normalized.error);
  return { id: `r${n++}`, action, match, value: normalized.value };
};
const address = (email: string) => {
  const syntax = checkSyntax(email);
  if (!syntax.ok) throw new Error(email);
  return syntax;
};

describe('allow and block rules', () => {
  it('stores values in the spelling they are compared in, and refuses what is not one', () => {
    expect(normalizeRuleValue('email', ' Bob.Smith@Example.COM ')).toEqual({ value: 'bob.smith@example.com' });
    expect(normalizeRuleValue('domain', 'Bücher.Example.')).toEqual({ value: 'xn--bcher-kva.example' });
    expect(normalizeRuleValue('tld', '.RU')).toEqual({ value: 'ru' });
    expect(normalizeRuleValue('mx', '*.Google.com')).toEqual({ value: 'google.com' });
    for (const [match, raw] of [
      ['email', 'nobody'],
      ['domain', 'a b.example'],
      ['tld', 'co.uk'],
      ['mx', ''],
    ] as const)
      expect(normalizeRuleValue(match, raw)).toHaveProperty('error');
  });

  it('lets the most specific level decide, and a block beat an allow at one level', () => {
    const rules = [
      rule('block', 'tld', 'zz'),
      rule('allow', 'tld', 'zz'),
      rule('allow', 'domain', 'shop.zz'),
      rule('block', 'email', 'Spam@Shop.zz'),
      rule('allow', 'mx', 'google.com'),
      rule('block', 'mx', 'aspmx.l.google.com'),
      rule('allow', 'mx', 'mimecast.com'),
    ];
    const book = ruleBook(rules);
    const decide = (email: string, hosts: string[] | null) => matchRule(book, address(email), hosts)?.id ?? null;
    expect(decide('spam@shop.zz', [])).toBe(rules[3]!.id); // the address, in another case
    expect(decide('anyone@shop.zz', [])).toBe(rules[2]!.id); // its domain
    expect(decide('anyone@other.zz', [])).toBe(rules[0]!.id); // the TLD: the block of the two
    // MX hosts beat the TLD; among the hosts a block beats an allow
    expect(decide('x@other.zz', ['ASPMX.L.GOOGLE.COM.', 'alt1.aspmx.l.google.com'])).toBe(rules[5]!.id);
    expect(decide('x@other.zz', ['eu-smtp-inbound-1.mimecast.com'])).toBe(rules[6]!.id);
    // an MX rule may be more specific than the TLD: without the hosts, no decision yet
    expect(decide('x@other.zz', null)).toBeNull();
    expect(decide('x@other.test', ['mx.other.test'])).toBeNull();
    expect(matchRule(ruleBook([rules[0]!]), address('x@y.zz'), null)?.id).toBe(rules[0]!.id); // no MX rules: the TLD decides at once
  });

  it('reads a CSV of rules or of values, skipping what is neither', () => {
    expect(
      rulesFromRows([['action', 'match', 'value'], ['Allow', 'EMAIL', 'a@b.c'], ['x.example'], ['', ''], ['what', 'is', 'this']], {
        action: 'block',
        match: 'domain',
      }),
    ).toEqual({
      rules: [
        { action: 'allow', match: 'email', value: 'a@b.c' },
        { action: 'block', match: 'domain', value: 'x.example' },
      ],
      skipped: [5],
    });
  });
});
