import { basename } from 'node:path';
import { EXIT, UsageError } from './cli-exit.ts';
import { readInput, writeOut, type Io } from './cli-io.ts';
import { listFromCsv, parseCsv } from './csv.ts';
import type { Bucket, EmailVerifier, JobStatus } from './index.ts';

/** The CLI's `verify` and `bulk` commands (cli.ts dispatches; lib/sdk/README.md describes them). */

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

export async function verifyCommand(client: EmailVerifier, emails: string[], json: boolean, io: Io): Promise<number> {
  if (emails.length === 0) throw new UsageError('verify needs at least one address');
  let code: number = EXIT.ok;
  for (const email of emails) {
    const result = await client.verify(email);
    io.stdout.write(json ? `${JSON.stringify(result)}\n` : `${result.email}\t${result.status}\t${result.score}\t${result.reason}\n`);
    if (result.status !== 'deliverable') code = EXIT.notDeliverable;
  }
  return code;
}

export async function bulkCommand(
  client: EmailVerifier,
  file: string | undefined,
  options: Record<string, string | boolean | undefined>,
  io: Io,
): Promise<number> {
  if (!file) throw new UsageError('bulk needs a file (or - for stdin)');
  const filter = options.filter as Bucket | undefined;
  if (filter !== undefined && !['deliverable', 'undeliverable', 'risky', 'unknown'].includes(filter)) throw new UsageError(`unknown --filter ${filter}`);
  let list: ReturnType<typeof listFromCsv>;
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
