// A second API server for tests, in its own process: serves a few /v1 routes over HTTP through the
// same route handlers, on the database and rate store its environment names. Prints its port.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as account from '../../app/v1/account/route';
import * as keys from '../../app/v1/keys/route';
import * as webhooks from '../../app/v1/webhooks/route';

type Handler = (request: Request, segment: { params: Promise<Record<string, never>> }) => Promise<Response>;
const routes: Record<string, Record<string, Handler>> = { '/v1/account': account, '/v1/keys': keys, '/v1/webhooks': webhooks };

const server = createServer(async (incoming, outgoing) => {
  const chunks: Buffer[] = [];
  for await (const chunk of incoming) chunks.push(chunk as Buffer);
  const handler = routes[incoming.url ?? '']?.[incoming.method ?? 'GET'];
  if (!handler) return outgoing.writeHead(404).end();
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers)) if (typeof value === 'string') headers.set(name, value);
  const body = chunks.length ? Buffer.concat(chunks) : undefined;
  const response = await handler(new Request(`http://localhost${incoming.url}`, { method: incoming.method, headers, body }), { params: Promise.resolve({}) });
  outgoing.writeHead(response.status, Object.fromEntries(response.headers));
  outgoing.end(Buffer.from(await response.arrayBuffer()));
});
server.listen(0, '127.0.0.1', () => console.log(`listening ${(server.address() as AddressInfo).port}`));
