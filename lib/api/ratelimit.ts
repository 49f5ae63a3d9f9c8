import { ApiError } from './errors';

const WINDOW_MS = 60_000;
const SANDBOX_LIMIT = 1000;

export type RateHeaders = Record<string, string>;

function windowReset(now: number): number {
  return Math.ceil((Math.floor(now / WINDOW_MS) + 1) * WINDOW_MS / 1000);
}

/** Sandbox: plausible values that never block (README, "API reference"). */
export function simulatedRateHeaders(now = Date.now()): RateHeaders {
  const used = Math.floor((now % WINDOW_MS) / 1000);
  return {
    'X-RateLimit-Limit': String(SANDBOX_LIMIT),
    'X-RateLimit-Remaining': String(SANDBOX_LIMIT - 1 - used),
    'X-RateLimit-Reset': String(windowReset(now)),
  };
}

/** Production headers for a request refused before its key was known (so not counted). */
export function uncountedRateHeaders(limit: number, now = Date.now()): RateHeaders {
  return { 'X-RateLimit-Limit': String(limit), 'X-RateLimit-Remaining': String(limit), 'X-RateLimit-Reset': String(windowReset(now)) };
}

const windows = new Map<string, { start: number; count: number }>();

/**
 * Production: a fixed one-minute window per key, counted in this process. Exceeding it throws the
 * 429 `rate_limit` error with Retry-After; otherwise returns the headers to send.
 */
export function takeRateLimit(subject: string, limit: number, now = Date.now()): RateHeaders {
  const start = Math.floor(now / WINDOW_MS) * WINDOW_MS;
  let window = windows.get(subject);
  if (!window || window.start !== start) {
    if (windows.size > 50_000) windows.clear();
    window = { start, count: 0 };
    windows.set(subject, window);
  }
  const reset = windowReset(now);
  const headers = { 'X-RateLimit-Limit': String(limit), 'X-RateLimit-Reset': String(reset) };
  if (window.count >= limit) {
    const retryAfter = Math.max(1, Math.ceil((start + WINDOW_MS - now) / 1000));
    throw new ApiError(
      'rate_limit',
      `Rate limit of ${limit} requests per minute exceeded. Retry in ${retryAfter} s.`,
      { retry_after: retryAfter },
      { ...headers, 'X-RateLimit-Remaining': '0', 'Retry-After': String(retryAfter) },
    );
  }
  window.count++;
  return { ...headers, 'X-RateLimit-Remaining': String(limit - window.count) };
}
