import { buildOpenApi } from '@/lib/api/openapi';

let document: string | null = null;

/** The OpenAPI document: public (no key, no rate limit), like /health. */
export function GET(): Response {
  document ??= JSON.stringify(buildOpenApi());
  return new Response(document, { headers: { 'content-type': 'application/json', 'cache-control': 'public, max-age=300' } });
}
