import { env } from '../env';
import { newId } from '../ids';
import { authenticate, type Caller } from './auth';
import { errorResponse } from './errors';
import { withIdempotency } from './idempotency';
import { simulatedRateHeaders, takeRateLimit, uncountedRateHeaders, type RateHeaders } from './ratelimit';

export interface ApiContext extends Caller {
  sandbox: boolean;
}

type Handler<P> = (request: Request, context: ApiContext, params: P) => Promise<Response>;

export function isSandbox(request: Request): boolean {
  return request.headers.get('x-ev-sandbox')?.trim().toLowerCase() === 'true';
}

/**
 * Every /v1 handler goes through here: authenticate, rate-limit, run, and turn any thrown error
 * into the one error envelope. Every response carries the X-RateLimit-* headers and an X-Request-Id
 * (also logged with an unexpected error, so a client's report can be found). A POST with an
 * Idempotency-Key runs under it (lib/api/idempotency.ts).
 */
export function apiRoute<P = Record<string, never>>(handler: Handler<P>) {
  return async (request: Request, segment: { params: Promise<P> }): Promise<Response> => {
    const sandbox = isSandbox(request);
    const requestId = newId('req');
    let rate: RateHeaders = sandbox ? simulatedRateHeaders() : uncountedRateHeaders(env().EV_RATE_LIMIT_PER_MINUTE);
    try {
      const caller = await authenticate(request);
      if (!sandbox) rate = takeRateLimit(caller.subject, env().EV_RATE_LIMIT_PER_MINUTE);
      const params = await segment.params;
      const run = (req: Request) => handler(req, { ...caller, sandbox }, params);
      const response = await withIdempotency(request, caller.userId, sandbox, run);
      for (const [name, value] of Object.entries(rate)) response.headers.set(name, value);
      response.headers.set('X-Request-Id', requestId);
      return response;
    } catch (error) {
      return errorResponse(error, { ...rate, 'X-Request-Id': requestId });
    }
  };
}

export const json = (body: unknown, status = 200) => Response.json(body, { status });
