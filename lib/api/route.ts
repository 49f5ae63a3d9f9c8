import { env } from '../env';
import { authenticate, type Caller } from './auth';
import { readBytes } from './body';
import { errorResponse } from './errors';
import { withIdempotency } from './idempotency';
import { simulatedRateHeaders, takeRateLimit, uncountedRateHeaders, type RateHeaders } from './ratelimit';

export interface ApiContext extends Caller {
  sandbox: boolean;
  /** the request body, read once within the route's limit (empty for GET, HEAD and no body) */
  body: Buffer;
}

type Handler<P> = (request: Request, context: ApiContext, params: P) => Promise<Response>;

/** What a route accepts: a JSON object of a few fields unless it says otherwise. */
export const DEFAULT_BODY_BYTES = 16 * 1024;

export interface RouteOptions {
  /** the largest body this route reads (default DEFAULT_BODY_BYTES); a function is asked per request */
  maxBodyBytes?: number | (() => number);
}

const EMPTY = Buffer.alloc(0);

export function isSandbox(request: Request): boolean {
  return request.headers.get('x-ev-sandbox')?.trim().toLowerCase() === 'true';
}

/**
 * Every /v1 handler goes through here: authenticate, rate-limit, read the body within the route's
 * byte limit (refused with 413 while it streams in, before anything buffers it whole), run, and
 * turn any thrown error into the one error envelope. Every response carries the X-RateLimit-*
 * headers. A POST with an Idempotency-Key runs under it (lib/api/idempotency.ts).
 */
export function apiRoute<P = Record<string, never>>(handler: Handler<P>, options: RouteOptions = {}) {
  return async (request: Request, segment: { params: Promise<P> }): Promise<Response> => {
    const sandbox = isSandbox(request);
    let rate: RateHeaders = sandbox ? simulatedRateHeaders() : uncountedRateHeaders(env().EV_RATE_LIMIT_PER_MINUTE);
    try {
      const caller = await authenticate(request);
      if (!sandbox) rate = takeRateLimit(caller.subject, env().EV_RATE_LIMIT_PER_MINUTE);
      const params = await segment.params;
      const limit = typeof options.maxBodyBytes === 'function' ? options.maxBodyBytes() : options.maxBodyBytes ?? DEFAULT_BODY_BYTES;
      const body = request.method === 'GET' || request.method === 'HEAD' || !request.body ? EMPTY : await readBytes(request, limit);
      const run = () => handler(request, { ...caller, sandbox, body }, params);
      const response = await withIdempotency(request, body, caller.userId, sandbox, run);
      for (const [name, value] of Object.entries(rate)) response.headers.set(name, value);
      return response;
    } catch (error) {
      return errorResponse(error, rate);
    }
  };
}

export const json = (body: unknown, status = 200) => Response.json(body, { status });
