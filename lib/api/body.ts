import type { z } from 'zod';
import { AppError, invalidRequest, validate } from '../errors/app-error';

/**
 * Reads a body's bytes, refusing it as soon as it passes `maxBytes` (by Content-Length when given,
 * else while streaming), so an oversized upload is never buffered whole.
 */
export async function readBytes(request: Request, maxBytes: number): Promise<Buffer> {
  const declared = Number(request.headers.get('content-length') ?? NaN);
  const tooLarge = () => new AppError('payload_too_large', `The request body is larger than ${maxBytes} bytes.`, { limit: maxBytes });
  if (!request.body) {
    if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge();
    return Buffer.alloc(0);
  }
  const reader = request.body.getReader();
  if (Number.isFinite(declared) && declared > maxBytes) {
    discardThenHangUp(reader);
    throw tooLarge();
  }
  // With a declared length the body is copied once into a buffer of that size (a 30 MB upload
  // then costs 30 MB, not chunks plus their concatenation); HTTP framing guarantees the length.
  const known = Number.isFinite(declared) && declared >= 0 ? Buffer.allocUnsafe(declared) : null;
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    // A client that aborts mid-upload makes read() reject: that is a bad request, not a 500.
    const { done, value } = await reader.read().catch(() => {
      throw invalidRequest('body', 'The request body could not be read completely.');
    });
    if (done) break;
    if (size + value.byteLength > maxBytes || (known && size + value.byteLength > known.length)) {
      discardThenHangUp(reader);
      throw size + value.byteLength > maxBytes ? tooLarge() : invalidRequest('body', 'The request body is longer than its Content-Length.');
    }
    if (known) known.set(value, size);
    else chunks.push(value);
    size += value.byteLength;
  }
  if (known) {
    if (size !== known.length) throw invalidRequest('body', 'The request body could not be read completely.');
    return known;
  }
  return Buffer.concat(chunks);
}

/** How long and how much of a refused body is still read (and dropped) after the answer is sent. */
export const LINGER = { ms: 2000, bytes: 16 * 1024 * 1024 };

/**
 * Hanging up on a client that is still sending makes its side reset the connection, and a reset
 * throws away our 413 still unread in its socket buffer: the client sees "connection reset", never
 * the answer. So a refused body is read and dropped for a moment (as web servers linger before
 * closing), long enough for the client to read the answer and stop, then the connection is closed.
 * Nothing is kept: memory stays flat whatever the client sends.
 */
function discardThenHangUp(reader: ReadableStreamDefaultReader<Uint8Array>): void {
  const end = Date.now() + LINGER.ms;
  let dropped = 0;
  const hangUp = setTimeout(() => void reader.cancel().catch(() => {}), LINGER.ms);
  void (async () => {
    while (Date.now() < end && dropped < LINGER.bytes) {
      const { done, value } = await reader.read();
      if (done) break;
      dropped += value.byteLength;
    }
    clearTimeout(hangUp);
    await reader.cancel();
  })().catch(() => clearTimeout(hangUp));
}

/**
 * A small JSON body (bounded by its route's limit before it got here) as a value. Every route but
 * bulk has a limit of kilobytes, so JSON.parse's worst case (about 20x the text for `[{},{},...]`)
 * stays small; bulk bodies are read by lib/jobs/intake/bulk-request.ts, which checks their shape as it goes.
 */
function parseJson(bytes: Buffer): unknown {
  if (bytes.length === 0) throw invalidRequest('body', 'The request body must be a JSON object.');
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    throw invalidRequest('body', 'The request body is not valid JSON.');
  }
}

/** Parses and validates a JSON body against a zod schema: the result is typed by the schema. */
export function parseBody<S extends z.ZodType>(bytes: Buffer, schema: S): z.infer<S> {
  return validate(schema, parseJson(bytes));
}

export { validate };

/** Query parameters as a plain object, validated like a body. */
export function parseQuery<S extends z.ZodType>(request: Request, schema: S): z.infer<S> {
  return validate(schema, Object.fromEntries(new URL(request.url).searchParams));
}
