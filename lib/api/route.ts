import { env } from '../config/env';
import { withAuditActor, type AuditActor } from '../audit/context';
import { clientAddress } from '../auth/origin';
import { newId } from '../db/ids';
import { authenticate, type Caller } from './auth';
import { corsHeaders } from './cors';
import { admitKey } from './key-access';
import { readBytes } from './body';
import { answer, type AnswerOf } from './answer';
import { errorResponse } from './error-response';
import type { Operation, PathParams } from './operation';
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

/**
 * A route's handler: one domain call, returning the domain value its operation answers (shaped by
 * lib/api/answer.ts), or a Response of its own (a file, a stream, a cookie to set).
 */
type Handler<P, A = never> = (request: Request, context: ApiContext, params: P) => Promise<Response | A>;

/** What a route accepts: a JSON object of a few fields unless its operation says otherwise. */
export const DEFAULT_BODY_BYTES = 16 * 1024;

/** A route handler as Next.js calls it, with the operation it serves (null: the unknown-path answer). */
export type BoundHandler<P = Record<string, string>> = ((request: Request, segment: { params: Promise<P> }) => Promise<Response>) & {
  readonly operation: Operation | null;
};

const EMPTY = Buffer.alloc(0);

export function isSandbox(request: Request): boolean {
  return request.headers.get('x-ev-sandbox')?.trim().toLowerCase() === 'true';
}

/**
 * Every /v1 handler goes through here, bound to the operation it serves (lib/api/operations/), which
 * says who may call it and how: authenticate (a session's two-factor and SSO exemptions are the
 * operation's), hold the caller to the operation's role and a key to its scopes and restrictions
 * (lib/api/key-access.ts; a publishable key's page gets CORS headers, lib/api/cors.ts), rate-limit
 * (production requests per key, a publishable key's per visitor and per key; in both
 * modes, requests that create rows per account: lib/api/limits.ts), read the body within the route's
 * byte limit (refused with 413 while it streams in, before anything buffers it whole), run, answer
 * the handler's value through the operation's response schema (lib/api/answer.ts), and turn any
 * thrown error into the one error envelope. Every response carries the X-RateLimit-*
 * headers and an X-Request-Id (also logged with an unexpected error, so a client's report can be
 * found). A POST with an Idempotency-Key runs under it (lib/api/idempotency.ts). The handler runs in
 * the audit context of its caller (lib/audit/context.ts).
 */
export function apiRoute<const O extends Operation>(op: O, handler: Handler<PathParams<O['path']>, AnswerOf<O>>): BoundHandler<PathParams<O['path']>> {
  return serve(op, handler);
}

/** The unknown-path answer (app/v1/[...path]): authenticated like every /v1 call, no operation, so no role or scope to check. */
export function unknownPathRoute(handler: Handler<{ path: string[] }>): BoundHandler<{ path: string[] }> {
  return serve(null, handler);
}

/**
 * An operation that needs no key (scope `public`: the OpenAPI document), bound like the others so
 * that every /v1 handler names its operation.
 */
export function publicOperation(op: Operation & { scope: 'public' }, handler: () => Response): (() => Response) & { readonly operation: Operation } {
  return Object.assign(() => handler(), { operation: op });
}

function serve<P, A>(op: Operation | null, handler: Handler<P, A>): BoundHandler<P> {
  const options: Partial<Operation> = op ?? {};
  const route = async (request: Request, segment: { params: Promise<P> }): Promise<Response> => {
    const since = performance.now();
    const sandbox = isSandbox(request);
    const requestId = newId('req');
    let rate: RateHeaders = sandbox ? simulatedRateHeaders() : uncountedRateHeaders(env().EV_RATE_LIMIT_PER_MINUTE);
    let cors: Record<string, string> = {};
    try {
      const caller = await authenticate(request, op);
      cors = corsHeaders(request, caller.key);
      const keyRate = await admitKey(request, caller, op);
      if (keyRate) rate = keyRate;
      else if (!sandbox) rate = await takeRateLimit(caller.subject, env().EV_RATE_LIMIT_PER_MINUTE);
      if (options.creates) await takeCreation(caller.userId);
      const params = await segment.params;
      const slot = options.heavy ? takeHeavySlot(caller.userId) : null;
      let response: Response;
      try {
        const limit = typeof options.maxBodyBytes === 'function' ? options.maxBodyBytes() : (options.maxBodyBytes ?? DEFAULT_BODY_BYTES);
        const body = request.method === 'GET' || request.method === 'HEAD' || !request.body ? EMPTY : await readBytes(request, limit);
        const run = async () => {
          const result = await handler(request, { ...caller, sandbox, body, since }, params);
          return result instanceof Response || !op ? (result as Response) : answer(op, result as object);
        };
        // the audit rows its domain functions write name this person, key and address (lib/audit/record.ts);
        // the address (which reads the environment's proxy trust) is worked out when a row asks for it
        const actor = auditActor(request, caller);
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
  return Object.assign(route, { operation: op });
}

/** The request's audit actor, its client address read when first asked for (most requests write no audit row). */
function auditActor(request: Request, caller: Caller): AuditActor {
  let address: string | undefined;
  return {
    userId: caller.actorId,
    keyId: caller.key?.id ?? null,
    method: caller.via,
    get clientAddress() {
      address ??= clientAddress(request);
      return address;
    },
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

/** A JSON answer of a route outside /v1 (sign-up, invitation links): /v1 operations answer through lib/api/answer.ts. */
export const json = (body: unknown, status = 200) => Response.json(body, { status });
