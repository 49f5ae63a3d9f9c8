import type { Database } from '../db/client';
import { createCapped, type Tx } from '../db/capped';
import { accountVersion, bumpAccountVersion } from '../accounts/versions';
import { selectRows } from '../db/sql';
import { env } from '../config/env';
import { isIdShaped, newId } from '../db/ids';
import { AppError, notFound } from '../errors/app-error';
import { checkSyntax } from '../verifier/syntax';
import { recordAudit } from '../audit/record';
import { EMPTY_BOOK, normalizeRuleValue, ruleBook, type Rule, type RuleAction, type RuleBook, type RuleMatch } from '../verifier/rule-match';

/** The `rules` table: an account's allow and block rules (lib/verifier/rule-match.ts applies them). */

export interface RuleInput {
  action: RuleAction;
  match: RuleMatch;
  value: string;
}

type Row = Rule & { createdAt: Date };

const shape = (row: Row) => ({ id: row.id, action: row.action, match: row.match, value: row.value, createdAt: row.createdAt.toISOString() });

/** Normalises each rule's value; a value that is not one is a 400 naming its index. */
function normalized(inputs: RuleInput[]): RuleInput[] {
  return inputs.map((input, index) => {
    const result = normalizeRuleValue(input.match, input.value);
    if ('error' in result)
      throw new AppError('invalid_request', `Rule ${index + 1}: ${JSON.stringify(input.value)} is ${result.error}.`, {
        param: inputs.length > 1 ? `rules[${index}].value` : 'value',
      });
    return { ...input, value: result.value };
  });
}

/**
 * Adds rules under the account's cap (409 `limit_reached` when they would pass it). A rule the
 * account already has is not added twice: the existing one is answered in its place.
 */
export async function addRules(database: Database, userId: string, inputs: RuleInput[]) {
  const wanted = normalized(inputs);
  const key = (r: RuleInput) => `${r.action}\u0000${r.match}\u0000${r.value}`;
  const unique = [...new Map(wanted.map((r) => [key(r), r])).values()];
  const added = await createCapped(
    database,
    userId,
    {
      what: 'rules',
      limit: env().EV_MAX_RULES_PER_ACCOUNT,
      adding: unique.length,
      count: (tx: Tx) => tx.rule.count({ where: { userId } }),
    },
    async (tx) => {
      // by value alone (one IN list, which Prisma splits to the database's parameter limit), then exactly here
      const existing = await tx.rule.findMany({ where: { userId, value: { in: [...new Set(unique.map((r) => r.value))] } } });
      const have = new Map(existing.map((row) => [key(row as Row), row as Row]));
      const fresh = unique.filter((r) => !have.has(key(r))).map((r) => ({ id: newId('rule'), userId, ...r, createdAt: new Date() }));
      if (fresh.length > 0) {
        await tx.rule.createMany({ data: fresh });
        // counts only: a rule's value may be an address
        await recordAudit(tx, userId, 'rules.changed', { type: 'rules' }, { added: fresh.length });
      }
      for (const row of fresh) have.set(key(row), row);
      return { rules: wanted.map((r) => shape(have.get(key(r))!)), created: fresh.length };
    },
  );
  if (added.created > 0) await bumpAccountVersion(database.prisma, database.dialect, userId);
  return added;
}

/** One rule: POST /v1/rules. */
export async function addRule(database: Database, userId: string, input: RuleInput) {
  return (await addRules(database, userId, [input])).rules[0]!;
}

export async function listRules({ prisma }: Database, userId: string) {
  const rows = await prisma.rule.findMany({ where: { userId }, orderBy: [{ createdAt: 'desc' }, { id: 'asc' }] });
  return rows.map((row) => shape(row as Row));
}

export async function deleteRule({ prisma, dialect }: Database, userId: string, id: string) {
  if (!isIdShaped(id)) throw notFound('Rule');
  await prisma.$transaction(async (tx) => {
    const { count } = await tx.rule.deleteMany({ where: { id, userId } });
    if (count === 0) throw notFound('Rule');
    await bumpAccountVersion(tx, dialect, userId);
    await recordAudit(tx, userId, 'rules.changed', { type: 'rules', id }, { removed: 1 });
  });
  return { id, deleted: true as const };
}

/**
 * Every rule of the account, read once per job chunk or instant list: raw SQL (on SQLite the direct
 * connection), as Prisma's per-row work would make 10,000 rules several times slower (bench/rules.ts).
 */
export async function ruleBookFor(database: Database, userId: string): Promise<RuleBook> {
  return ruleBook(await selectRows<Rule>(database, 'SELECT id, action, "match", value FROM rules WHERE user_id = ?', [userId]));
}

/** Each process's copy of an account's rule book, kept under the account's version (lib/accounts/versions.ts). */
const books = new Map<string, { version: number; book: RuleBook }>();
/** rules held in `books` across accounts, and accounts: past either the copies are dropped and read again as needed */
const MAX_CACHED_RULES = 200_000;
const MAX_CACHED_BOOKS = 10_000;
let cachedRules = 0;

/**
 * The rule book a single check applies: the account's whole book, read once per change to the
 * account's rules (one version read per request otherwise; `since`: lib/accounts/versions.ts).
 * The whole book decides an address exactly as the rules of its own address, domain, TLD and MX
 * hosts would (lib/verifier/rule-match.ts looks each level up by value).
 */
export async function ruleBookForAddress(database: Database, userId: string, email: string, since?: number): Promise<RuleBook> {
  if (!checkSyntax(email).ok) return EMPTY_BOOK;
  const version = await accountVersion(database, userId, since);
  const held = books.get(userId);
  if (held && version !== null && held.version === version) return held.book;
  const book = await ruleBookFor(database, userId);
  if (version === null) return book;
  const replaced = books.get(userId);
  if (replaced) cachedRules -= replaced.book.size;
  if (cachedRules + book.size > MAX_CACHED_RULES || books.size >= MAX_CACHED_BOOKS) {
    books.clear();
    cachedRules = 0;
  }
  books.set(userId, { version, book });
  cachedRules += book.size;
  return book;
}
