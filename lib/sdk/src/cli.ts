#!/usr/bin/env node
import { createWriteStream, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { parseArgs } from 'node:util';
import { KEYS_HELP, keysCommand } from './cli-keys.ts';
import { listFromCsv, parseCsv } from './csv.ts';
import { RULES_HELP, rulesCommand, usageCommand } from './cli-rules.ts';
import { DATA_HELP, eraseCommand, exportCommand, retentionCommand } from './cli-data.ts';
import { MONITORS_HELP, changedCommand, monitorsCommand, reuseCommand } from './cli-monitors.ts';
import { AUDIT_HELP, auditCommand } from './cli-audit.ts';
import { TEAMS_HELP, invitationsCommand, membersCommand } from './cli-teams.ts';
import {
  AuthenticationError,
  ConnectionError,
  EmailVerifier,
  EmailVerifierError,
  InsufficientCreditsError,
  RateLimitError,
  ServerError,
  TimeoutError,
  type Bucket,
  type JobStatus,
} from './index.ts';

/** Exit codes: lib/sdk/README.md lists them. */
export const EXIT = {
  ok: 0,
  notDeliverable: 1,
  usage: 2,
  authentication: 3,
  credits: 4,
  rateLimited: 5,
  refused: 6,
  unavailable: 7,
  jobEnded: 8,
} as const;

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

interface Io {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  stdin: NodeJS.ReadableStream;
  env: Record<string, string | undefined>;
}

class UsageError extends Error {}

function exitCodeOf(error: unknown): number {
  if (error instanceof UsageError) return EXIT.usage;
  if (error instanceof AuthenticationError) return EXIT.authentication;
  if (error instanceof InsufficientCreditsError) return EXIT.credits;
  if (error instanceof RateLimitError) return EXIT.rateLimited;
  if (error instanceof ServerError || error instanceof TimeoutError || error instanceof ConnectionError) return EXIT.unavailable;
  if (error instanceof EmailVerifierError) return EXIT.refused;
  return EXIT.unavailable;
}

async function readInput(file: string, stdin: NodeJS.ReadableStream): Promise<string> {
  if (file !== '-') {
    try {
      return readFileSync(file, 'utf8');
    } catch (error) {
      throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
    }
  }
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

function progressBar(io: Io, enabled: boolean) {
  let lastStep = -1;
  return {
    update(status: JobStatus) {
      if (!enabled) return;
      const line = `${status.status.padEnd(10)} ${String(status.progress).padStart(3)}% ${status.processed_emails}/${status.total_emails}`;
      if (io.stderr.isTTY) {
        const filled = Math.round(status.progress / 5);
        io.stderr.write(`\r[${'#'.repeat(filled)}${'-'.repeat(20 - filled)}] ${line}`);
      } else if (Math.floor(status.progress / 10) !== lastStep) {
        // not a terminal: a line every 10 %, so a log stays readable
        lastStep = Math.floor(status.progress / 10);
        io.stderr.write(`${line}\n`);
      }
    },
    end() {
      if (enabled && io.stderr.isTTY) io.stderr.write('\n');
    },
  };
}

async function verifyCommand(client: EmailVerifier, emails: string[], json: boolean, io: Io): Promise<number> {
  if (emails.length === 0) throw new UsageError('verify needs at least one address');
  let code: number = EXIT.ok;
  for (const email of emails) {
    const result = await client.verify(email);
    io.stdout.write(json ? `${JSON.stringify(result)}\n` : `${result.email}\t${result.status}\t${result.score}\t${result.reason}\n`);
    if (result.status !== 'deliverable') code = EXIT.notDeliverable;
  }
  return code;
}

/** A download to `out`, or to stdout (not ended: it belongs to the process; written chunk by chunk, minding back-pressure). */
async function writeOut(body: ReadableStream<Uint8Array>, out: string | undefined, io: Io): Promise<void> {
  const csv = Readable.fromWeb(body as NodeReadableStream<Uint8Array>);
  if (out) await pipeline(csv, createWriteStream(out));
  else for await (const chunk of csv) if (!io.stdout.write(chunk)) await new Promise((resolve) => io.stdout.once('drain', resolve));
}

async function bulkCommand(client: EmailVerifier, file: string | undefined, options: Record<string, string | boolean | undefined>, io: Io): Promise<number> {
  if (!file) throw new UsageError('bulk needs a file (or - for stdin)');
  const filter = options.filter as Bucket | undefined;
  if (filter !== undefined && !['deliverable', 'undeliverable', 'risky', 'unknown'].includes(filter)) throw new UsageError(`unknown --filter ${filter}`);
  let list;
  try {
    list = listFromCsv(parseCsv(await readInput(file, io.stdin)), options.column as string | undefined);
  } catch (error) {
    throw error instanceof UsageError ? error : new UsageError(`${file}: ${(error as Error).message}`);
  }
  const submitted = await client.bulk.submit({ ...list, ...(file !== '-' ? { filename: basename(file) } : {}) });
  const bar = progressBar(io, options.progress !== false);
  const done = await client.bulk.wait(submitted.job_id, { onProgress: (status) => bar.update(status), intervalMs: 1000 });
  bar.end();
  if (done.status !== 'completed') {
    io.stderr.write(`job ${done.job_id} ${done.status}${done.error ? `: ${done.error}` : ''}\n`);
    return EXIT.jobEnded;
  }
  const out = options.out as string | undefined;
  await writeOut(await client.bulk.download(done.job_id, { filter }), out, io);
  const s = done.data!.summary;
  io.stderr.write(
    `${done.job_id}: ${s.total} addresses, ${s.deliverable} deliverable, ${s.undeliverable} undeliverable, ${s.risky} risky, ${s.unknown} unknown${out ? ` → ${out}` : ''}\n`,
  );
  return EXIT.ok;
}

/** Runs the CLI with these arguments; returns the exit code. */
export async function main(argv: string[], io: Io): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
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
