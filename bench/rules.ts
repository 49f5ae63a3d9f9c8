/**
 * Allow and block rules on a list's hot path (docs/rules-and-usage.md): loading an account's
 * 10,000 rules (what a worker does once per chunk) and matching 1,000,000 addresses against them.
 *   npx tsx bench/rules.ts            (SQLite; EV_BENCH_PG=1 for PostgreSQL)
 */
import { ensureAccount } from '../lib/accounts/users';
import { useDatabase } from '../lib/db/client';
import { addRules, ruleBookFor } from '../lib/rules/store';
import { matchRule } from '../lib/verifier/rule-match';
import { checkSyntax } from '../lib/verifier/syntax';
import { freshDatabaseUrl } from '../test/databases';

const fresh = await freshDatabaseUrl(process.env.EV_BENCH_PG ? 'postgres' : 'sqlite');
process.env.EV_MAX_RULES_PER_ACCOUNT = '10000';
const database = await useDatabase(fresh.url);
const account = await ensureAccount(database, 'bench@example.com');
const inputs = Array.from({ length: 10_000 }, (_, i) =>
  i % 100 === 0
    ? { action: 'allow' as const, match: 'mx' as const, value: `mx${i}.example` }
    : i % 2
      ? { action: 'block' as const, match: 'email' as const, value: `user${i}@domain${i % 500}.test` }
      : { action: 'block' as const, match: 'domain' as const, value: `domain${i}.test` },
);
for (let start = 0; start < inputs.length; start += 1000) await addRules(database, account.id, inputs.slice(start, start + 1000));

const loads: number[] = [];
let book = await ruleBookFor(database, account.id);
for (let i = 0; i < 20; i++) {
  const t = performance.now();
  book = await ruleBookFor(database, account.id);
  loads.push(performance.now() - t);
}
loads.sort((a, b) => a - b);

const addresses = Array.from({ length: 1_000_000 }, (_, i) => checkSyntax(`user${i % 20_000}@domain${i % 1000}.test`)).map((s) => (s.ok ? s : null)!);
const t = performance.now();
let ruled = 0;
for (const address of addresses) if (matchRule(book, address, ['mx.domain.test'])) ruled++;
const matchMs = performance.now() - t;
console.log(
  `${database.dialect}: load 10,000 rules median ${loads[10]!.toFixed(1)} ms (p95 ${loads[18]!.toFixed(1)} ms); match 1,000,000 addresses ${matchMs.toFixed(0)} ms (${((matchMs * 1e6) / 1e6).toFixed(0)} ns each), ${ruled} ruled`,
);
await database.prisma.$disconnect();
await fresh.drop();
