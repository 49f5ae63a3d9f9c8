import { AppError } from '../errors/app-error';
import { rateStore } from './rate-store';

const WINDOW_MS = 60_000;
const SANDBOX_LIMIT = 1000;

export type RateHeaders = Record<string, string>;

function windowReset(now: number): number {
  return Math.ceil(((Math.floor(now / WINDOW_MS) + 1) * WINDOW_MS) / 1000);
}

/** Sandbox: plausible values that never block (docs/api.md). */
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

/**
 * Production: a fixed one-minute window per key, counted in the rate store (lib/api/rate-store.ts),
 * so the headers hold across every server sharing it. Exceeding it throws the 429 `rate_limit`
 * error with Retry-After; otherwise returns the headers to send.
 */
export async function takeRateLimit(subject: string, limit: number, now = Date.now()): Promise<RateHeaders> {
  const { count } = await (await rateStore()).hit(`key:${subject}`, WINDOW_MS, now);
  const headers = { 'X-RateLimit-Limit': String(limit), 'X-RateLimit-Reset': String(windowReset(now)) };
  if (count > limit) {
    const retryAfter = secondsUntil(now, WINDOW_MS);
    throw new AppError(
      'rate_limit',
      `Rate limit of ${limit} requests per minute exceeded. Retry in ${retryAfter} s.`,
      { retry_after: retryAfter },
      { ...headers, 'X-RateLimit-Remaining': '0', 'Retry-After': String(retryAfter) },
    );
  }
  return { ...headers, 'X-RateLimit-Remaining': String(limit - count) };
}

/** Whole seconds (at least 1) until the fixed window of `windowMs` holding `now` ends. */
export function secondsUntil(now: number, windowMs: number): number {
  return Math.max(1, Math.ceil((Math.floor(now / windowMs) * windowMs + windowMs - now) / 1000));
}
