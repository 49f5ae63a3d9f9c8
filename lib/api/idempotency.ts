import { createHash } from 'node:crypto';
import { db, type Database } from '../db/client';
import { q } from '../db/sql';
import { AppError } from '../errors/errors';
import { errorResponse } from './errors';

/**
 * Idempotency-Key on POST (Stripe semantics): the first answer below 500 to a key is stored for the
 * account and replayed to retries of the same request; a key in flight answers 409, a key reused
 * for another request 422. A 500 releases the key so the retry can run.
 */
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;
export const MAX_KEY_LENGTH = 255;

type Row = { requestHash: string; state: string; responseStatus: number | null; responseBody: string | null };

/** The request's Idempotency-Key, or null when there is none (or the method is not POST). */
export function idempotencyKeyOf(request: Request): string | null {
  if (request.method !== 'POST') return null;
  const key = request.headers.get('idempotency-key');
  if (key === null) return null;
  if (key.length === 0 || key.length > MAX_KEY_LENGTH) {
    throw new AppError('invalid_request', `Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} characters.`, { param: 'Idempotency-Key' });
  }
  return key;
}

/** Method, path, mode and raw body: the mode is in so a sandbox answer is never replayed to a live request. */
export function requestHash(request: Request, sandbox: boolean, body: Uint8Array): string {
  const head = `${request.method}\n${new URL(request.url).pathname}\n${sandbox ? 'sandbox' : 'live'}\n`;
  return createHash('sha256').update(head).update(body).digest('hex');
}

/** Claims the key atomically; null when this request owns it now, else the row that holds it. */
export async function claimKey({ prisma, dialect }: Database, userId: string, key: string, hash: string, now = Date.now()): Promise<Row | null> {
  // Lazy expiry: also frees this very key when its previous use is older than the TTL.
  await prisma.$executeRawUnsafe(q(dialect, 'DELETE FROM "idempotency_keys" WHERE "created_at" < ?'), now - IDEMPOTENCY_TTL_MS);
  for (let tries = 0; tries < 3; tries++) {
    const inserted = await prisma.$executeRawUnsafe(
      q(dialect, `INSERT INTO "idempotency_keys" ("user_id", "key", "request_hash", "state", "created_at") VALUES (?, ?, ?, 'running', ?) ON CONFLICT DO NOTHING`),
      userId, key, hash, now,
    );
    if (inserted === 1) return null;
    const row = await prisma.idempotencyKey.findUnique({ where: { userId_key: { userId, key } } });
    if (row) return row; // else it was released between the INSERT and the read: try again
  }
  throw new AppError('conflict', 'The original request with this Idempotency-Key is in progress. Retry later.');
}

/** The stored answer for a retry, or the error that says why there is none. */
export function replayOf(row: Row, hash: string): Response {
  if (row.requestHash !== hash) {
    throw new AppError('idempotency_key_reused', 'This Idempotency-Key was already used with a different request.', { param: 'Idempotency-Key' });
  }
  if (row.state !== 'done') throw new AppError('conflict', 'The original request with this Idempotency-Key is in progress. Retry later.');
  return new Response(row.responseBody, {
    status: row.responseStatus!,
    headers: { 'content-type': 'application/json', 'idempotent-replayed': 'true' },
  });
}

/**
 * Stores an answer below 500 for replay; releases the key on a 500 so a retry runs again, and on a
 * 429 or 409 (a rate window, lib/api/limits.ts, or an account cap, lib/db/capped.ts): those pass, and the retry must
 * then run rather than replay the refusal.
 */
export async function settleKey({ prisma }: Database, userId: string, key: string, response: Response): Promise<Response> {
  const where = { userId, key, state: 'running' };
  if (response.status >= 500 || response.status === 429 || response.status === 409) {
    await prisma.idempotencyKey.deleteMany({ where });
    return response;
  }
  const body = await response.text();
  await prisma.idempotencyKey.updateMany({ where, data: { state: 'done', responseStatus: response.status, responseBody: body } });
  return new Response(body, { status: response.status, headers: response.headers });
}

/**
 * Runs `handler` under the request's Idempotency-Key, if any, hashing the body apiRoute has read
 * (within the route's own limit).
 */
export async function withIdempotency(
  request: Request,
  body: Buffer,
  userId: string,
  sandbox: boolean,
  handler: () => Promise<Response>,
): Promise<Response> {
  const key = idempotencyKeyOf(request);
  if (key === null) return handler();
  const hash = requestHash(request, sandbox, body);
  const database = await db();
  const held = await claimKey(database, userId, key, hash);
  if (held) return replayOf(held, hash);
  let response: Response;
  try {
    response = await handler();
  } catch (error) {
    response = errorResponse(error);
  }
  try {
    return await settleKey(database, userId, key, response);
  } catch (error) {
    // Never leave the key running when its answer could not be stored.
    await database.prisma.idempotencyKey.deleteMany({ where: { userId, key, state: 'running' } }).catch(() => undefined);
    throw error;
  }
}
