import type { z } from 'zod';

/**
 * The closed set of error codes and their HTTP statuses (the error table of docs/api.md; `Error` in
 * lib/api/openapi.ts). The domain throws `AppError` without importing the request plumbing;
 * `errorResponse` (lib/api/error-response.ts) turns it into the envelope.
 */
export const ERROR_STATUS = {
  authentication_error: 401,
  invalid_request: 400,
  too_many_emails: 413,
  payload_too_large: 413,
  not_found: 404,
  job_not_completed: 409,
  conflict: 409,
  limit_reached: 409,
  idempotency_key_reused: 422,
  rate_limit: 429,
  insufficient_credits: 402,
  member_cap_reached: 402,
  forbidden: 403,
  insufficient_scope: 403,
  insufficient_role: 403,
  not_a_member: 403,
  sso_required: 403,
  two_factor_required: 403,
  ip_not_allowed: 403,
  origin_not_allowed: 403,
  method_not_allowed: 405,
  timeout: 504,
  service_unavailable: 503,
  server_error: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** The one error type the server throws; `extra` fields join the envelope (`param`, `limit`, `retry_after`). */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: Record<string, string | number> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export const invalidRequest = (param: string, message: string) => new AppError('invalid_request', message, { param });
export const notFound = (what = 'Job') => new AppError('not_found', `${what} not found.`);

/**
 * `input` parsed by a zod schema, or a 400 naming the first offending field as zod's path (`emails.3`).
 * Here rather than in lib/api so the domain (lib/jobs/intake/bulk-request.ts) validates without the request plumbing.
 */
export function validate<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const param = issue.path.length ? issue.path.join('.') : 'body';
  throw invalidRequest(param, `${param}: ${issue.message}`);
}
