import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import * as unknownPath from '@/app/v1/[...path]/route';
import { ROUTE_MODULES } from './contract';

type RouteHandler = (request: Request, segment: { params: Promise<Record<string, unknown>> }) => Promise<Response> | Response;

const routes = Object.entries(ROUTE_MODULES)
  .map(([template, module]) => {
    const names: string[] = [];
    const source = template.replace(/\{(\w+)\}/g, (_, name: string) => {
      names.push(name);
      return '([^/]+)';
    });
    // static segments before parameters, as Next.js matches them
    return { pattern: new RegExp(`^${source.replaceAll('.', '\\.')}$`), names, module, weight: names.length };
  })
  .sort((a, b) => a.weight - b.weight);

function route(method: string, pathname: string): { handler: RouteHandler; params: Record<string, unknown> } {
  for (const { pattern, names, module } of routes) {
    const match = pattern.exec(pathname);
    const handler = match && (module[method] as RouteHandler | undefined);
    if (handler) return { handler, params: Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(match[i + 1]!)])) };
  }
  const fallback = (unknownPath as Record<string, unknown>)[method] as RouteHandler;
  return { handler: fallback, params: { path: pathname.split('/').slice(2) } };
}

async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  const request = new Request(url, {
    method: req.method,
    headers,
    body: hasBody ? (Readable.toWeb(req) as ReadableStream<Uint8Array>) : undefined,
    duplex: 'half',
  } as RequestInit);
  const { handler, params } = route(req.method ?? 'GET', url.pathname);
  const response = await handler(request, { params: Promise.resolve(params) });
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (!response.body) return void res.end();
  const body = Readable.fromWeb(response.body as import('node:stream/web').ReadableStream);
  body.on('error', () => res.destroy());
  body.pipe(res);
}

/**
 * The real /v1 route handlers behind a real HTTP server on loopback, routed as Next.js routes them
 * (for the SDK and CLI tests: they speak HTTP, not function calls).
 */
export async function startApiServer(): Promise<{ url: string; close: () => Promise<void>; server: Server }> {
  const server = createServer((req, res) => {
    serve(req, res).catch((error) => {
      console.error('[test server]', error);
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    server,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
