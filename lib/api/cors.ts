import { keyAccess, type KeyAccess } from '../accounts/keys';
import { db } from '../db/client';
import { AppError } from '../errors/app-error';
import { errorResponse } from './error-response';

/**
 * CORS for publishable keys (the form widget, /widget.js, and the SDK in a browser): only the
 * origins a key lists may read its answers, never with credentials (no cookies), and a preflight is
 * answered only for them. The preflight cannot carry the Authorization header, so a page sends its
 * publishable key as `?key=` (lib/api/auth.ts).
 */
export function allowedOrigin(request: Request, key: KeyAccess): string | null {
  const origin = request.headers.get('origin');
  return origin && key.allowedOrigins?.includes(origin) ? origin : null;
}

const EXPOSED = 'X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After';

/** The headers that let the key's page read this answer (none for other callers). */
export function corsHeaders(request: Request, key: KeyAccess | null): Record<string, string> {
  const origin = key?.type === 'publishable' ? allowedOrigin(request, key) : null;
  return origin ? { 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': EXPOSED, Vary: 'Origin' } : {};
}

/** OPTIONS on the routes a publishable key may call: 204 with the CORS grant for a listed origin, else 403 without one. */
export async function preflight(request: Request): Promise<Response> {
  const presented = new URL(request.url).searchParams.get('key');
  const key = presented ? await keyAccess(await db(), presented) : null;
  const live = key && key.type === 'publishable' && (key.expiresAt === null || key.expiresAt > Date.now());
  const origin = live ? allowedOrigin(request, key) : null;
  if (!origin || request.headers.get('access-control-request-method') !== 'POST') {
    return errorResponse(new AppError('origin_not_allowed', 'Preflight refused: send a publishable key as ?key= from one of its allowed_origins.'), {
      Vary: 'Origin',
    });
  }
  return new Response(null, {
    status: 204,
    headers: {
      'Access-Control-Allow-Origin': origin,
      'Access-Control-Allow-Methods': 'POST',
      'Access-Control-Allow-Headers': 'Content-Type, X-EV-Sandbox, Idempotency-Key',
      'Access-Control-Max-Age': '600',
      Vary: 'Origin',
    },
  });
}
