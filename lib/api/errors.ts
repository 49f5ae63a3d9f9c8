/** The closed set of API error codes (api-decisions.md, "Errors") and their HTTP statuses. */
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
  forbidden: 403,
  method_not_allowed: 405,
  timeout: 504,
  service_unavailable: 503,
  server_error: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** The one error type the API throws; `extra` fields join the envelope (`param`, `limit`, `retry_after`). */
export class ApiError extends Error {
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

export const invalidRequest = (param: string, message: string) => new ApiError('invalid_request', message, { param });
export const notFound = (what = 'Job') => new ApiError('not_found', `${what} not found.`);

export function errorResponse(error: unknown, headers: Record<string, string> = {}): Response {
  const apiError =
    error instanceof ApiError ? error : new ApiError('server_error', 'Something went wrong on our side. Please try again.');
  if (!(error instanceof ApiError)) console.error('[api] unexpected error', error);
  return Response.json(
    { error: apiError.code, message: apiError.message, ...apiError.extra },
    { status: apiError.status, headers: { ...headers, ...apiError.headers } },
  );
}
