import { isRole } from '../accounts/roles';
import { createHash, randomBytes } from 'node:crypto';
import { withKeyToken } from '../accounts/causes';
import { exceeds, type KeyAccess } from '../accounts/keys';
import { env } from '../config/env';
import { db, type Database } from '../db/client';
import { failpoint } from '../failpoints/failpoints';
import { q } from '../db/sql';
import { AppError } from '../errors/app-error';
import { errorResponse } from './error-response';

/**
 * Idempotency-Key on POST (Stripe semantics): the first answer below 500 to a key is stored for the
 * caller (the API key, or the dashboard's session: each has its own keys, so a widget visitor
 * cannot take a name the owner's server uses) and replayed to retries of the same request; a key in
 * flight answers 409, a key reused for another request 422. A 500 releases the key so the retry can
 * run. A replay never shows more than the replaying key may see (`visibleTo`).
 *
 * A request that dies (kill -9, a lost machine) cannot release its key: while it runs it renews
 * `heartbeat_at` every third of EV_IDEMPOTENCY_STALE_MS, and a retry of the same request that finds
 * the key `running` with a heartbeat older than that takes it over and runs. The key's `token`
 * names the work it pays for (lib/accounts/causes.ts) across attempts, so the retry takes over the
 * dead attempt's open reservation instead of reserving again (docs/guarantees.md).
 */
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;
export const MAX_KEY_LENGTH = 255;
/** The namespace of rows written before keys were per caller (migration 20261127120100): read by every caller of the account until they expire. */
export const ACCOUNT_WIDE = '';

/** Whose Idempotency-Keys a request uses: its API key's id, or `session` for the dashboard. */
export const callerOf = (key: { id: string } | null): string => key?.id ?? 'session';

type Row = {
  requestHash: string;
  state: string;
  responseStatus: number | null;
  responseBody: string | null;
  token: string;
  owner: string;
  heartbeatAt: bigint;
};

/** This request owns the key: under its `token`, as `owner`; `takeover` when an attempt before it died; `caller`: the namespace of the row it holds. */
export interface Claim {
  token: string;
  owner: string;
  takeover: boolean;
  caller: string;
}

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

/**
 * Claims the key atomically in the caller's namespace, or takes it over from an attempt that stopped
 * beating; else the row that holds it. A row from before keys were per caller (ACCOUNT_WIDE) is
 * still the key's, for its last hours, so a retry across the upgrade finds its answer.
 */
export async function claimKey(
  { prisma, dialect }: Database,
  userId: string,
  key: string,
  hash: string,
  now = Date.now(),
  caller = ACCOUNT_WIDE,
): Promise<Claim | Row> {
  // Lazy expiry: also frees this very key when its previous use is older than the TTL.
  await prisma.$executeRawUnsafe(q(dialect, 'DELETE FROM "idempotency_keys" WHERE "created_at" < ?'), now - IDEMPOTENCY_TTL_MS);
  const owner = randomBytes(9).toString('base64url');
  const older =
    caller === ACCOUNT_WIDE ? null : await prisma.idempotencyKey.findUnique({ where: { userId_caller_key: { userId, caller: ACCOUNT_WIDE, key } } });
  const namespace = older ? ACCOUNT_WIDE : caller;
  for (let tries = 0; tries < 3; tries++) {
    const token = randomBytes(12).toString('base64url');
    const inserted = await prisma.$executeRawUnsafe(
      q(
        dialect,
        `INSERT INTO "idempotency_keys" ("user_id", "caller", "key", "request_hash", "state", "created_at", "token", "owner", "heartbeat_at")
        VALUES (?, ?, ?, ?, 'running', ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
      ),
      userId,
      namespace,
      key,
      hash,
      now,
      token,
      owner,
      now,
    );
    if (inserted === 1) return { token, owner, takeover: false, caller: namespace };
    const row = await prisma.idempotencyKey.findUnique({ where: { userId_caller_key: { userId, caller: namespace, key } } });
    if (!row) continue; // released between the INSERT and the read: try again
    if (row.state !== 'running' || row.requestHash !== hash || Number(row.heartbeatAt) >= now - env().EV_IDEMPOTENCY_STALE_MS) return row;
    // Its request died: take it over, conditionally, so two retries cannot both win.
    const taken = await prisma.idempotencyKey.updateMany({
      where: { userId, caller: namespace, key, state: 'running', owner: row.owner, heartbeatAt: row.heartbeatAt },
      data: { owner, heartbeatAt: BigInt(now), token: row.token || token },
    });
    if (taken.count === 1) return { token: row.token || token, owner, takeover: true, caller: namespace };
  }
  throw new AppError('conflict', 'The original request with this Idempotency-Key is in progress. Retry later.');
}

const isClaim = (held: Claim | Row): held is Claim => 'takeover' in held;

/** Renews the claim's heartbeat while its request runs; the returned function stops it. */
function heartbeat({ prisma }: Database, userId: string, key: string, claim: Claim): () => void {
  const timer = setInterval(
    () => {
      prisma.idempotencyKey
        .updateMany({ where: { userId, caller: claim.caller, key, owner: claim.owner, state: 'running' }, data: { heartbeatAt: BigInt(Date.now()) } })
        .catch((error) => console.error(`[idempotency] heartbeat of a key failed: ${error}`));
    },
    Math.max(100, Math.floor(env().EV_IDEMPOTENCY_STALE_MS / 3)),
  );
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * A stored answer as the replaying key may see it: a publishable key's without `evidence` (what its
 * own answers leave out, lib/checks/shape.ts), and a made key's secret only to a key it does not
 * exceed (lib/accounts/keys.ts). The same key replays what it was answered; this holds for rows
 * of the account-wide namespace and for a key whose scopes shrank since.
 */
function visibleTo(viewer: KeyAccess | null, path: string, body: string | null): string | null {
  if (viewer === null || body === null) return body;
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(body);
  } catch {
    return body;
  }
  if (viewer.type === 'publishable' && 'evidence' in parsed && parsed.evidence !== null) return JSON.stringify({ ...parsed, evidence: null });
  if (path === '/v1/keys' && typeof parsed.key === 'string') {
    const made = {
      scopes: parsed.scopes as KeyAccess['scopes'],
      allowedIps: parsed.allowed_ips as string[] | null,
      expiresAt: parsed.expires_at ? Date.parse(String(parsed.expires_at)) : null,
      // answers stored before roles were made by the owner's keys
      role: isRole(parsed.role) ? parsed.role : undefined,
    };
    if (exceeds(viewer, made))
      throw new AppError('insufficient_scope', "This Idempotency-Key's answer holds a key wider than the one replaying it.", { param: 'Idempotency-Key' });
  }
  return body;
}

/** The stored answer for a retry, or the error that says why there is none; shown as `viewer` may see it. */
export function replayOf(row: Row, hash: string, viewer: KeyAccess | null = null, path = ''): Response {
  if (row.requestHash !== hash) {
    throw new AppError('idempotency_key_reused', 'This Idempotency-Key was already used with a different request.', { param: 'Idempotency-Key' });
  }
  if (row.state !== 'done') throw new AppError('conflict', 'The original request with this Idempotency-Key is in progress. Retry later.');
  return new Response(visibleTo(viewer, path, row.responseBody), {
    status: row.responseStatus!,
    headers: { 'content-type': 'application/json', 'idempotent-replayed': 'true' },
  });
}

/**
 * Stores an answer below 500 for replay; releases the key on a 500 so a retry runs again, and on a
 * 429 or 409 (a rate window, lib/api/limits.ts, or an account cap, lib/db/capped.ts): those pass, and the retry must
 * then run rather than replay the refusal.
 */
export async function settleKey(
  { prisma }: Database,
  userId: string,
  key: string,
  owner: string,
  response: Response,
  caller = ACCOUNT_WIDE,
): Promise<Response> {
  // only while this attempt still owns the key: one taken over by a retry is the retry's to settle
  const where = { userId, caller, key, state: 'running', owner };
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
  who: { userId: string; key: KeyAccess | null },
  sandbox: boolean,
  handler: () => Promise<Response>,
): Promise<Response> {
  const key = idempotencyKeyOf(request);
  if (key === null) return handler();
  const userId = who.userId;
  const hash = requestHash(request, sandbox, body);
  const database = await db();
  const held = await claimKey(database, userId, key, hash, Date.now(), callerOf(who.key));
  if (!isClaim(held)) return replayOf(held, hash, who.key, new URL(request.url).pathname);
  const stopBeating = heartbeat(database, userId, key, held);
  let response: Response;
  try {
    failpoint('idempotency.mid-request');
    response = await withKeyToken(held.token, held.takeover, handler);
  } catch (error) {
    response = errorResponse(error);
  } finally {
    stopBeating();
  }
  try {
    return await settleKey(database, userId, key, held.owner, response, held.caller);
  } catch (error) {
    // Never leave the key running when its answer could not be stored.
    await database.prisma.idempotencyKey
      .deleteMany({ where: { userId, caller: held.caller, key, state: 'running', owner: held.owner } })
      .catch(() => undefined);
    throw error;
  }
}
