import { buildOpenApi } from '@/lib/api/openapi';
import { operations } from '@/lib/api/operations';
import { publicOperation } from '@/lib/api/route';

let document: string | null = null;

/** The OpenAPI document: public (no key, no rate limit), like /health. */
export const GET = publicOperation(operations.getOpenApi, () => {
  document ??= JSON.stringify(buildOpenApi());
  return new Response(document, { headers: { 'content-type': 'application/json', 'cache-control': 'public, max-age=300' } });
});
