/**
 * Liveness for load balancers (outside /v1: no key, no rate limit), and the trivial JSON route the
 * benchmark compares the sandbox call with.
 */
export function GET(): Response {
  return Response.json({ ok: true });
}
