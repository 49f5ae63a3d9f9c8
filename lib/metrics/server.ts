import http from 'node:http';
import { AppError } from '../errors/app-error';
import { scrapeMetrics } from './endpoint';

/**
 * `npm run worker` with EV_METRICS_PORT: the worker's own /metrics (same token and answers as the
 * web server's), so Prometheus scrapes every worker of the fleet like any other target.
 */
export function serveMetrics(port: number, host = '0.0.0.0'): Promise<http.Server> {
  const server = http.createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://worker').pathname;
    if (request.method !== 'GET' || path !== '/metrics') return answer(response, 404, 'Not found.\n');
    scrapeMetrics(request.headers.authorization ?? null).then(
      ({ body, contentType }) => answer(response, 200, body, { 'content-type': contentType }),
      (error: unknown) => {
        if (error instanceof AppError) return answer(response, error.status, `${error.message}\n`, error.headers);
        console.error('[metrics] scrape failed', error);
        answer(response, 500, 'Scrape failed.\n');
      },
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}

function answer(response: http.ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', ...headers }).end(body);
}
