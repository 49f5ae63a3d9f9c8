import type { z } from 'zod';
import type { Scope } from '../accounts/scopes';
import type { Role } from '../accounts/roles';

/**
 * One /v1 endpoint, declared once (lib/api/operations/, one file per area): its path and method, who may call it,
 * how much of a body it reads, and its request and response schemas. Its route file binds its
 * handler to it (`apiRoute(operations.submitBulk, handler)`, lib/api/route.ts), so authentication,
 * the role and scope checks and the OpenAPI document (lib/api/openapi.ts) all read this object.
 */

export type Method = 'get' | 'post' | 'patch' | 'delete';
export type Status = 400 | 402 | 404 | 409 | 413 | 503 | 504;

/** What a verification can answer beyond every call's errors: no credits, no sender identity, the sandbox's timeout. */
export const VERIFY_ERRORS: Status[] = [402, 503, 504];

export interface Operation {
  method: Method;
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  /** the key scope this operation needs (lib/api/key-access.ts); `public`: no key at all */
  scope: Scope | 'public';
  /**
   * the lowest role that may call it (lib/accounts/roles.ts, docs/teams.md): a session's person's
   * role in the organisation, or a key's own role, must reach it (403 `insufficient_role`)
   */
  role: Role;
  /** publishable keys may call it (from their allowed origins; lib/api/cors.ts) */
  publishable?: true;
  /**
   * a session without two-factor may call it in an organisation that requires two-factor (so the
   * person can enrol, or switch organisation); every other operation refuses it (403
   * `two_factor_required`, lib/api/auth.ts)
   */
  twoFactorExempt?: true;
  /** a password session is admitted to it in an organisation that signs in through SSO only (`sso_required`, lib/api/auth.ts) */
  ssoExempt?: true;
  /** the largest body it reads (default DEFAULT_BODY_BYTES, lib/api/route.ts); a function is asked per request */
  maxBodyBytes?: number | (() => number);
  /** it creates rows (keys, webhooks, deliveries): counted in the account's creation rate, in both modes (lib/api/limits.ts) */
  creates?: true;
  /** a bulk submission or a download: holds one of the account's heavy slots while it runs (lib/api/heavy.ts) */
  heavy?: true;
  /**
   * the answer holds a secret shown once (a two-factor secret, recovery codes): it is never stored
   * under an Idempotency-Key (where another session of the organisation could replay it); the
   * header is ignored
   */
  unstored?: true;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** status and schema of the success answer; `csv` for the download, `zip` for the export */
  ok: [number, z.ZodType | 'csv' | 'zip'];
  /** the same answer is also offered as text/csv (`?format=csv`) */
  csvToo?: boolean;
  /** error statuses beyond those every call can get (401, 429, 500; and 400, 403, 409, 413, 422 for POST) */
  errors?: Status[];
  sandboxTriggers?: boolean;
}

/** Declares an operation, keeping its path's literal type (a handler's params are typed from it: PathParams). */
export function operation<const O extends Operation>(declared: O): O {
  return declared;
}

type ParamNames<P extends string> = P extends `${string}{${infer Name}}${infer Rest}` ? Name | ParamNames<Rest> : never;

/** The route segment's params of a path template: `/v1/keys/{id}` → `{ id: string }`. */
export type PathParams<P extends string> = { [Name in ParamNames<P>]: string };
