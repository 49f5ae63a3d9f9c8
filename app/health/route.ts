/** Liveness, and the trivial JSON route the benchmark compares the sandbox call with. */
export function GET(): Response {
  return Response.json({ ok: true });
}
