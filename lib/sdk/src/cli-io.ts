import { createWriteStream, readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { UsageError } from './cli-exit.ts';

/** The CLI's streams and environment (the process's own, or a test's). */
export interface Io {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  stdin: NodeJS.ReadableStream;
  env: Record<string, string | undefined>;
}

/** A file, or `-`: all of stdin. */
export async function readInput(file: string, stdin: NodeJS.ReadableStream): Promise<string> {
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

/** A download to `out`, or to stdout (not ended: it belongs to the process; written chunk by chunk, minding back-pressure). */
export async function writeOut(body: ReadableStream<Uint8Array>, out: string | undefined, io: Io): Promise<void> {
  const csv = Readable.fromWeb(body as NodeReadableStream<Uint8Array>);
  if (out) await pipeline(csv, createWriteStream(out));
  else for await (const chunk of csv) if (!io.stdout.write(chunk)) await new Promise((resolve) => io.stdout.once('drain', resolve));
}
