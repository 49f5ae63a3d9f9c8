#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { AUDIT_HELP, auditCommand } from './cli-audit.ts';
import { DATA_HELP, eraseCommand, exportCommand, retentionCommand } from './cli-data.ts';
import { EXIT, UsageError, exitCodeOf } from './cli-exit.ts';
import { readInput, writeOut, type Io } from './cli-io.ts';
import { KEYS_HELP, keysCommand } from './cli-keys.ts';
import { MONITORS_HELP, changedCommand, monitorsCommand, reuseCommand } from './cli-monitors.ts';
import { RULES_HELP, rulesCommand, usageCommand } from './cli-rules.ts';
import { TEAMS_HELP, invitationsCommand, membersCommand } from './cli-teams.ts';
import { bulkCommand, verifyCommand } from './cli-verify.ts';
import { EmailVerifier, EmailVerifierError } from './index.ts';

export { EXIT } from './cli-exit.ts';

const HELP = `Usage: email-verifier <command> [options]

Commands:
  verify <email>...          verify addresses; one line each: email, status, score, reason
  bulk <file.csv|->          verify a list (CSV with a header naming an email column, or one address
                             a line), with a progress bar on stderr; writes the result CSV
${RULES_HELP}
${MONITORS_HELP}
${KEYS_HELP}
${TEAMS_HELP}
${DATA_HELP}
${AUDIT_HELP}

Options:
  --sandbox                  sandbox mode (X-EV-Sandbox: true): deterministic, free
  --base-url <url>           the service (default $EV_BASE_URL or http://localhost:3000)
  --json                     verify: print the full results as JSON lines
  -o, --out <file>           bulk: write the result CSV here (default stdout)
  --column <name|index>      bulk: the address column (default the first header naming an email)
  --filter <bucket>          bulk: only deliverable, undeliverable, risky or unknown rows
  --timeout <ms>             per request (default 30000)
  --retries <n>              retries on 429, 5xx and network errors (default 2)
  --no-progress              bulk: no progress bar
  -h, --help, -v, --version

The API key comes from $EV_API_KEY.
Exit codes: 0 done (verify: every address deliverable), 1 verify: an address is not deliverable,
2 usage, 3 authentication, 4 insufficient credits, 5 rate limited, 6 request refused (invalid,
not found, conflict), 7 server, time-out or connection error, 8 bulk job failed or cancelled.`;

/** The command line's options and positionals (node:util parseArgs; throws on an unknown option). */
function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      sandbox: { type: 'boolean' },
      'base-url': { type: 'string' },
      json: { type: 'boolean' },
      out: { type: 'string', short: 'o' },
      column: { type: 'string' },
      filter: { type: 'string' },
      timeout: { type: 'string' },
      retries: { type: 'string' },
      progress: { type: 'boolean', default: true },
      'no-progress': { type: 'boolean' },
      name: { type: 'string' },
      scopes: { type: 'string' },
      'allowed-ips': { type: 'string' },
      'expires-at': { type: 'string' },
      origins: { type: 'string' },
      'checks-per-day': { type: 'string' },
      'checks-per-month': { type: 'string' },
      role: { type: 'string' },
      publishable: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
      from: { type: 'string' },
      to: { type: 'string' },
      csv: { type: 'boolean' },
      action: { type: 'string' },
      match: { type: 'string' },
      actor: { type: 'string' },
    },
  });
}

/** Runs the CLI with these arguments; returns the exit code. */
export async function main(argv: string[], io: Io): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    io.stderr.write(`${(error as Error).message}\n\n${HELP}\n`);
    return EXIT.usage;
  }
  const { values, positionals } = parsed;
  if (values.help || positionals.length === 0) {
    (values.help ? io.stdout : io.stderr).write(`${HELP}\n`);
    return values.help ? EXIT.ok : EXIT.usage;
  }
  if (values.version) {
    io.stdout.write('0.1.0\n');
    return EXIT.ok;
  }
  const [command, ...rest] = positionals;
  try {
    const apiKey = io.env.EV_API_KEY;
    if (!apiKey) throw new UsageError("set EV_API_KEY to an API key (npm run create-key on the server, or the dashboard's Settings)");
    const number = (name: string, text: string | undefined) => {
      if (text === undefined) return undefined;
      if (!/^\d+$/.test(text)) throw new UsageError(`--${name} must be a whole number`);
      return Number(text);
    };
    const client = new EmailVerifier({
      apiKey,
      baseUrl: values['base-url'] ?? io.env.EV_BASE_URL ?? undefined,
      sandbox: values.sandbox ?? false,
      timeoutMs: number('timeout', values.timeout),
      maxRetries: number('retries', values.retries),
      onRetry: ({ attempt, delayMs, error }) => io.stderr.write(`retry ${attempt} in ${delayMs} ms after ${error.code}\n`),
    });
    if (command === 'verify') return await verifyCommand(client, rest, values.json ?? false, io);
    if (command === 'bulk') {
      return await bulkCommand(client, rest[0], { ...values, progress: values['no-progress'] ? false : values.progress }, io);
    }
    if (command === 'rules')
      return await rulesCommand(
        client,
        rest,
        values,
        io,
        (file) => readInput(file, io.stdin),
        (message) => new UsageError(message),
      );
    if (command === 'usage') return await usageCommand(client, values, io);
    if (command === 'audit') return await auditCommand(client, values, io);
    if (command === 'retention') return await retentionCommand(client, rest, io, (message) => new UsageError(message));
    if (command === 'erase') return await eraseCommand(client, rest, io, (message) => new UsageError(message));
    if (command === 'export') return await exportCommand(client, values.out, (body) => writeOut(body, values.out, io), io);
    if (command === 'monitors') return await monitorsCommand(client, rest, io, (message) => new UsageError(message));
    if (command === 'changed')
      return await changedCommand(
        client,
        rest[0],
        (body) => writeOut(body, values.out, io),
        (message) => new UsageError(message),
      );
    if (command === 'reuse') return await reuseCommand(client, rest[0], io, (message) => new UsageError(message));
    if (command === 'invitations') return await invitationsCommand(client, rest, io, (message) => new UsageError(message));
    if (command === 'members') return await membersCommand(client, rest, values, io, (message) => new UsageError(message));
    if (command === 'keys') {
      await keysCommand(client, rest, values, io, (message) => new UsageError(message));
      return EXIT.ok;
    }
    throw new UsageError(`unknown command ${command}`);
  } catch (error) {
    const code = exitCodeOf(error);
    const detail = error instanceof EmailVerifierError ? ` (${error.code}${error.requestId ? `, request ${error.requestId}` : ''})` : '';
    io.stderr.write(`error: ${(error as Error).message}${detail}\n${code === EXIT.usage ? `\n${HELP}\n` : ''}`);
    return code;
  }
}

const invokedDirectly = typeof process !== 'undefined' && process.argv[1] !== undefined && import.meta.url.endsWith('/cli.js');
if (invokedDirectly) {
  main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env }).then((code) => {
    process.exitCode = code;
  });
}
