import { env } from '../config/env';
import { withAuditActor } from '../audit/context';
import { clientAddress } from '../auth/origin';
import { newId } from '../db/ids';
import { authenticate, type Caller } from './auth';
import { corsHeaders } from './cors';
import { admitKey } from './key-access';
import { readBytes } from './body';
import { errorResponse } from './error-response';
import { takeHeavySlot, watchBody } from './heavy';
import { withIdempotency } from './idempotency';
import { takeCreation } from './limits';
import { simulatedRateHeaders, takeRateLimit, uncountedRateHeaders, type RateHeaders } from './ratelimit';

export interface ApiContext extends Caller {
  sandbox: boolean;
  /** the request body, read once within the route's limit (empty for GET, HEAD and no body) */
  body: Buffer;
  /** performance.now() when the request arrived: reads of cached account data issued after it may be shared (lib/accounts/versions.ts) */
  since: number;
}

type Handler<P> = (request: Request, context: ApiContext, params: P) => Promise<Response>;

/** What a route accepts: a JSON object of a few fields unless it says otherwise. */
export const DEFAULT_BODY_BYTES = 16 * 1024;

export interface RouteOptions {
  /** the largest body this route reads (default DEFAULT_BODY_BYTES); a function is asked per request */
  maxBodyBytes?: number | (() => number);
  /** the route creates rows (keys, webhooks, deliveries): counted in the account's creation rate, in both modes */
  creates?: boolean;
  /** the unknown-path answer only: no operation, so no key scope to check */
  unscoped?: boolean;
  /** a bulk submission or a download: holds one of the account's heavy slots while it runs (./heavy.ts) */
  heavy?: boolean;
  /**
   * the answer holds a secret shown once (a two-factor secret, recovery codes): it is never stored
   * under an Idempotency-Key (where another session of the organisation could replay it); the
   * header is ignored
   */
  unstored?: boolean;
}

const EMPTY = Buffer.alloc(0);

export function isSandbox(request: Request): boolean {
  return request.headers.get('x-ev-sandbox')?.trim().toLowerCase() === 'true';
}

/**
 * Every /v1 handler goes through here: authenticate, hold a key to its scopes and restrictions
 * (lib/api/key-access.ts; a publishable key's page gets CORS headers, lib/api/cors.ts), rate-limit
 * (production requests per key, a publishable key's per visitor and per key; in both
 * modes, requests that create rows per account: lib/api/limits.ts), read the body within the route's
 * byte limit (refused with 413 while it streams in, before anything buffers it whole), run, and
 * turn any thrown error into the one error envelope. Every response carries the X-RateLimit-*
 * headers and an X-Request-Id (also logged with an unexpected error, so a client's report can be
 * found). A POST with an Idempotency-Key runs under it (lib/api/idempotency.ts). The handler runs in
 * the audit context of its caller (lib/audit/context.ts).
 */
export function apiRoute<P = Record<string, never>>(handler: Handler<P>, options: RouteOptions = {}) {
  return async (request: Request, segment: { params: Promise<P> }): Promise<Response> => {
    const since = performance.now();
    const sandbox = isSandbox(request);
    const requestId = newId('req');
    let rate: RateHeaders = sandbox ? simulatedRateHeaders() : uncountedRateHeaders(env().EV_RATE_LIMIT_PER_MINUTE);
    let cors: Record<string, string> = {};
    try {
      const caller = await authenticate(request);
      cors = corsHeaders(request, caller.key);
      const keyRate = await admitKey(request, caller, options.unscoped);
      if (keyRate) rate = keyRate;
      else if (!sandbox) rate = await takeRateLimit(caller.subject, env().EV_RATE_LIMIT_PER_MINUTE);
      if (options.creates) await takeCreation(caller.userId);
      const params = await segment.params;
      const slot = options.heavy ? takeHeavySlot(caller.userId) : null;
      let response: Response;
      try {
        const limit = typeof options.maxBodyBytes === 'function' ? options.maxBodyBytes() : (options.maxBodyBytes ?? DEFAULT_BODY_BYTES);
        const body = request.method === 'GET' || request.method === 'HEAD' || !request.body ? EMPTY : await readBytes(request, limit);
        const run = () => handler(request, { ...caller, sandbox, body, since }, params);
        // the audit rows its domain functions write name this person, key and address (lib/audit/record.ts)
        const actor = { userId: caller.actorId, keyId: caller.key?.id ?? null, clientAddress: clientAddress(request), method: caller.via };
        response = await withAuditActor(actor, () => (options.unstored ? run() : withIdempotency(request, body, caller, sandbox, run)));
      } catch (error) {
        slot?.release();
        throw error;
      }
      // a streamed download keeps its slot until its last byte
      if (slot) response = watchBody(response, slot.release);
      for (const [name, value] of Object.entries({ ...rate, ...cors })) response.headers.set(name, value);
      response.headers.set('X-Request-Id', requestId);
      return response;
    } catch (error) {
      return errorResponse(error, { ...rate, ...cors, 'X-Request-Id': requestId });
    }
  };
}

/**
 * A route without an API key or session (sign-up): the same X-Request-Id and error envelope as
 * apiRoute. The handler reads the body when its cheaper checks have passed, within `maxBodyBytes`.
 */
export function publicRoute(
  handler: (request: Request, readBody: () => Promise<Buffer>) => Promise<Response>,
  options: { maxBodyBytes: () => number } = { maxBodyBytes: () => DEFAULT_BODY_BYTES },
) {
  return async (request: Request): Promise<Response> => {
    const requestId = newId('req');
    try {
      const response = await handler(request, () => readBytes(request, options.maxBodyBytes()));
      response.headers.set('X-Request-Id', requestId);
      return response;
    } catch (error) {
      return errorResponse(error, { 'X-Request-Id': requestId });
    }
  };
}

export const json = (body: unknown, status = 200) => Response.json(body, { status });

/**
 * A success answer in the envelope: `success: true` before the domain's fields. Domain functions
 * return data; every route adds the envelope here.
 */
export const ok = (body: object, status = 200) => json({ success: true, ...body }, status);
