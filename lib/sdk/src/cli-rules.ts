import { parseCsv } from './csv.ts';
import type { EmailVerifier } from './index.ts';
import { rulesFromRows } from './rules.ts';
import type { RuleAction, RuleMatch } from './rules-types.ts';

/** The CLI's `rules` and `usage` commands (cli.ts dispatches; docs/rules-and-usage.md describes them). */

export const RULES_HELP = `  rules list                 the account's allow and block rules: id, action, match, value
  rules add <allow|block> <email|domain|mx|tld> <value>
  rules import <file.csv|->  action,match,value rows, or one value a row with --action and --match
  rules delete <id>
  usage                      per UTC day and mode (--from, --to YYYY-MM-DD; --csv for the CSV)`;

interface Out {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

const ACTIONS = ['allow', 'block'];
const MATCHES = ['email', 'domain', 'mx', 'tld'];

export async function rulesCommand(
  client: EmailVerifier,
  args: string[],
  options: { action?: string; match?: string },
  io: Out,
  read: (file: string) => Promise<string>,
  usageError: (message: string) => Error,
): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'list') {
    for (const rule of await client.rules.list()) io.stdout.write(`${rule.id}\t${rule.action}\t${rule.match}\t${rule.value}\n`);
    return 0;
  }
  if (sub === 'add') {
    const [action, match, value] = rest;
    if (!action || !ACTIONS.includes(action) || !match || !MATCHES.includes(match) || !value)
      throw usageError('rules add <allow|block> <email|domain|mx|tld> <value>');
    const rule = await client.rules.create({ action: action as RuleAction, match: match as RuleMatch, value });
    io.stdout.write(`${rule.id}\t${rule.action}\t${rule.match}\t${rule.value}\n`);
    return 0;
  }
  if (sub === 'import') {
    if (!rest[0]) throw usageError('rules import needs a file (or - for stdin)');
    const action = options.action ?? 'block';
    const match = options.match ?? 'domain';
    if (!ACTIONS.includes(action) || !MATCHES.includes(match)) throw usageError('--action is allow or block; --match is email, domain, mx or tld');
    const { rules, skipped } = rulesFromRows(parseCsv(await read(rest[0])), { action: action as RuleAction, match: match as RuleMatch });
    if (skipped.length > 0) io.stderr.write(`skipped row${skipped.length === 1 ? '' : 's'} ${skipped.join(', ')}\n`);
    const { created } = await client.rules.import(rules);
    io.stderr.write(`${created} new of ${rules.length} rules\n`);
    return 0;
  }
  if (sub === 'delete' && rest[0]) {
    await client.rules.delete(rest[0]);
    return 0;
  }
  throw usageError('rules list | add | import | delete');
}

export async function usageCommand(client: EmailVerifier, options: { from?: string; to?: string; csv?: boolean }, io: Out): Promise<number> {
  const range = { from: options.from, to: options.to };
  if (options.csv) {
    io.stdout.write(await client.usageCsv(range));
    return 0;
  }
  for (const row of (await client.usage(range)).data) {
    if (row.checks === 0 && row.charged === 0 && row.refunded === 0 && !row.credits_granted) continue;
    io.stdout.write(
      `${row.day}\t${row.mode}\t${row.checks} checks\t${row.deliverable} deliverable\t${row.undeliverable} undeliverable\t${row.risky} risky\t${row.unknown} unknown\t${row.charged} charged\t${row.refunded} refunded\n`,
    );
  }
  return 0;
}
