import { createServer, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { connect, createServer as createTcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

/**
 * A site of its own origin for the widget spec: a sign-up form that loads /widget.js from the
 * service, under a strict CSP (no inline styles or scripts), a thank-you page the form submits to,
 * and the compiled SDK under /sdk/ for the browser SDK check.
 */
export async function startHostSite(sdkDir: string): Promise<{ port: number; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://host');
    if (url.pathname === '/signup.html') {
      const api = url.searchParams.get('api')!;
      const attrs = ['key', 'sandbox', 'timeout', 'block', 'message-undeliverable', 'fail']
        .filter((name) => url.searchParams.has(name))
        .map((name) => ` data-${name}="${url.searchParams.get(name)!.replace(/"/g, '&quot;')}"`)
        .join('');
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': `default-src 'self'; script-src 'self' ${api}; connect-src 'self' ${api}; style-src 'self'`,
      });
      return void res.end(`<!doctype html><html lang="en"><head><title>Shop sign-up</title></head><body>
<form action="/done" method="get">
  <label for="email">Email</label> <input id="email" type="email" name="email" autocomplete="off">
  <label for="work">Work email</label> <input id="work" name="work" data-ev-verify>
  <button type="submit">Sign up</button>
</form>
<script src="${api}/widget.js"${attrs} defer></script>
<script src="/events.js"></script>
</body></html>`);
    }
    if (url.pathname === '/events.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      return void res.end("window.evEvents = []; document.addEventListener('ev:verified', function (e) { window.evEvents.push(e.detail); });");
    }
    if (url.pathname === '/done') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return void res.end(`<!doctype html><title>Thanks</title><p id="thanks">Thanks ${(url.searchParams.get('email') ?? '').replace(/[<&]/g, '')}</p>`);
    }
    if (url.pathname.startsWith('/sdk/')) {
      try {
        const file = readFileSync(join(sdkDir, url.pathname.slice(5).replace(/\.\./g, '')));
        res.writeHead(200, { 'content-type': 'text/javascript' });
        return void res.end(file);
      } catch {
        return void res.writeHead(404).end();
      }
    }
    if (url.pathname === '/sdk.html') {
      res.writeHead(200, { 'content-type': 'text/html' });
      return void res.end('<!doctype html><title>SDK</title>');
    }
    res.writeHead(404).end();
  });
  return listen(server);
}

/** A TCP forwarder to the service, so a spec can make "the service" hang (stall) or stop (close) as the page sees it. */
export async function startForwarder(target: number): Promise<{ port: number; stall: () => void; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  let stalled = false;
  const server = createTcpServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    if (stalled) return; // accepted, never answered
    const upstream = connect(target, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => socket.destroy());
    }
    client.pipe(upstream).pipe(client);
  });
  const listening = await listen(server);
  return {
    port: listening.port,
    stall: () => {
      stalled = true;
      for (const socket of sockets) socket.destroy();
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await listening.close();
    },
  };
}

async function listen(server: Server | ReturnType<typeof createTcpServer>) {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
