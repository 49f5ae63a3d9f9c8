import { publicRoute } from '@/lib/api/route';
import { scrapeMetrics } from '@/lib/metrics/endpoint';

/** Prometheus metrics of this server process (docs/operations.md); outside /v1: its own token, no API key. */
export const GET = publicRoute(async (request) => {
  const { body, contentType } = await scrapeMetrics(request.headers.get('authorization'));
  return new Response(body, { headers: { 'content-type': contentType, 'cache-control': 'no-store' } });
});
