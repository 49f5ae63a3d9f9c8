import type { Role, Scope } from './key-types.ts';

/** The body of an error answer: `error` is its code (`rate_limit`, `not_found`, …), `message` says it in words. */
export interface ErrorBody {
  error: string;
  message: string;
  param?: string;
  /** `insufficient_scope`: the scope the operation needs */
  scope?: Scope;
  /** `insufficient_role`: the role the operation needs */
  role?: Role;
  limit?: number;
  retry_after?: number;
  required?: number;
  free_remaining_today?: number;
  credits?: number;
}

export interface ErrorDetails {
  /** the API's error code (`rate_limit`, `not_found`, …), or the SDK's own (`timeout`, `connection_error`) */
  code: string;
  /** HTTP status; 0 when no answer came */
  status: number;
  /** the server's X-Request-Id: quote it when reporting a problem */
  requestId: string | null;
  /** the error envelope as the server sent it */
  body?: ErrorBody | null;
  cause?: unknown;
}

/** Every error the SDK throws; the subclasses below tell what happened. */
export class EmailVerifierError extends Error {
  readonly code: string;
  readonly status: number;
  readonly requestId: string | null;
  readonly body: ErrorBody | null;
  /** `invalid_request`, `idempotency_key_reused`: the field, parameter or header at fault */
  readonly param: string | undefined;

  constructor(message: string, details: ErrorDetails) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
    this.code = details.code;
    this.status = details.status;
    this.requestId = details.requestId;
    this.body = details.body ?? null;
    this.param = details.body?.param;
  }
}

/**
 * 401: missing, unknown, revoked or expired key; 403: the key may not do this (`insufficient_scope`,
 * with `body.scope`; `ip_not_allowed`; `origin_not_allowed`) or a cookie-authenticated write from another origin.
 */
export class AuthenticationError extends EmailVerifierError {}
/** 400, 413, 422: the request itself is wrong (see `param`). */
export class ValidationError extends EmailVerifierError {}
/** 402: the free quota and the credits are used up (`insufficient_credits`), or the person acting has spent their cap in the organisation (`member_cap_reached`: `body.period`, `body.cap`, `body.resets_at`). */
export class InsufficientCreditsError extends EmailVerifierError {
  get required(): number | undefined {
    return this.body?.required;
  }
}
/** 404 */
export class NotFoundError extends EmailVerifierError {}
/** 409: a job not completed yet, an ended job cancelled, an idempotent request still running. */
export class ConflictError extends EmailVerifierError {}
/** 429 after the retries; `retryAfter` in seconds. */
export class RateLimitError extends EmailVerifierError {
  constructor(
    message: string,
    details: ErrorDetails,
    readonly retryAfter: number | null,
  ) {
    super(message, details);
  }
}
/** 504 from the server, or no answer within `timeoutMs` (status 0), after the retries. */
export class TimeoutError extends EmailVerifierError {}
/** 5xx after the retries. */
export class ServerError extends EmailVerifierError {}
/** No answer at all (refused, reset, DNS) after the retries. */
export class ConnectionError extends EmailVerifierError {}
/** A webhook whose signature or timestamp does not check out. */
export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

/** The typed error for an error answer. */
export function errorFromResponse(status: number, body: ErrorBody | null, requestId: string | null, retryAfter: number | null): EmailVerifierError {
  const code = body?.error ?? (status >= 500 ? 'server_error' : 'http_error');
  const message = body?.message ?? `HTTP ${status}`;
  const details: ErrorDetails = { code, status, requestId, body };
  if (status === 401 || status === 403) return new AuthenticationError(message, details);
  if (status === 402) return new InsufficientCreditsError(message, details);
  if (status === 404) return new NotFoundError(message, details);
  if (status === 409) return new ConflictError(message, details);
  if (status === 429) return new RateLimitError(message, details, retryAfter);
  if (status === 504 || code === 'timeout') return new TimeoutError(message, details);
  if (status >= 500) return new ServerError(message, details);
  return new ValidationError(message, details);
}
