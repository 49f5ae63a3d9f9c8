import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Webhook receivers an account could register, for the bounds in lib/webhooks/send.ts:
 * - trickle: answers 200 at once, then one body byte every `trickleMs`, never finishing
 * - huge: answers 200 with a body of `hugeBytes` (default 1 GiB), as fast as the client reads
 * - slow-headers: reads the request and never answers
 * - ok: answers 204 at once (the well-behaved neighbour)
 */
export type ReceiverKind = 'trickle' | 'huge' | 'slow-headers' | 'ok';

export interface HostileReceiver {
  url: string;
  /**
   * requests received (one per delivery attempt), body bytes written back, the webhook-id of each
   * request, the most requests of one webhook-id that were open at once, and the requests open now
   */
  stats(): { requests: number; bytesSent: number; ids: string[]; maxOpenPerId: number; openNow: number };
  stop(): Promise<void>;
}

export async function startReceiver(kind: ReceiverKind, options: { trickleMs?: number; hugeBytes?: number } = {}): Promise<HostileReceiver> {
  let requests = 0;
  let bytesSent = 0;
  const ids: string[] = [];
  const open = new Map<string, number>();
  let maxOpenPerId = 0;
  const server = http.createServer((req, res) => {
    requests++;
    const id = String(req.headers['webhook-id']);
    ids.push(id);
    open.set(id, (open.get(id) ?? 0) + 1);
    maxOpenPerId = Math.max(maxOpenPerId, open.get(id)!);
    res.on('close', () => open.set(id, open.get(id)! - 1));
    req.resume();
    res.on('error', () => {});
    switch (kind) {
      case 'ok':
        res.writeHead(204).end();
        break;
      case 'slow-headers':
        break; // never a word
      case 'trickle': {
        res.writeHead(200, { 'content-type': 'text/plain' });
        const timer = setInterval(() => {
          bytesSent++;
          res.write('x');
        }, options.trickleMs ?? 4000);
        res.on('close', () => clearInterval(timer));
        break;
      }
      case 'huge': {
        const total = options.hugeBytes ?? 1024 ** 3;
        const chunk = Buffer.alloc(64 * 1024, 'x');
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(total) });
        const pump = () => {
          while (bytesSent < total && !res.destroyed) {
            bytesSent += chunk.length;
            if (!res.write(chunk)) return;
          }
          if (bytesSent >= total) res.end();
        };
        res.on('drain', pump);
        pump();
        break;
      }
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    stats: () => ({ requests, bytesSent, ids: [...ids], maxOpenPerId, openNow: [...open.values()].reduce((a, b) => a + b, 0) }),
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
