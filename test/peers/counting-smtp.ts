import net from 'node:net';
import { freePort } from './common';

/**
 * A mail server listening on many loopback addresses at once (127.0.0.x: each one MX host), which
 * counts what a receiving provider counts: when each connection opened and closed, per address. It
 * speaks the commands the verifier sends, holds every reply `replyDelayMs` (a far-away MX), and
 * can answer a connection "421 4.7.0 Too many connections" as Gmail and Yahoo do. Providers count
 * per client IP, so each connection records the address it came from (a worker bound to
 * 127.0.0.101 by EV_SMTP_SOURCE_IP is seen as 127.0.0.101) and the HELO name it gave.
 */
export interface CountingSmtpOptions {
  hosts: string[];
  port?: number;
  replyDelayMs?: number;
  /** the reply to RCPT TO (default: 250 for local parts starting "ok", else 550 5.1.1); `client`: the connection's source IP */
  rcpt?: (address: string, client: string) => string;
  /** a 421 banner instead of 220 for this connection (then hang up) */
  refuse?: (host: string, connection: number) => boolean;
}

export interface Connection {
  host: string;
  client: string;
  helo: string | null;
  openedAt: number;
  closedAt: number | null;
  refused: boolean;
}

/**
 * The most starts a pace of `perMinute` lets a mail server see in any `windowMs`: the reserved
 * starts are 60 s / perMinute apart, and one whose connect a busy event loop delays can land in the
 * next window beside its successors (one late start aside; seen as 13 for 12 on a loaded 2-core machine).
 */
export const paceAllows = (perMinute: number, windowMs: number) => Math.ceil((perMinute * windowMs) / 60_000) + 1;

export interface CountingSmtp {
  port: number;
  connections: Connection[];
  /** the most connections open at once to `hosts` together (of those opened since `since`, performance.now(); from `client` only when given) */
  maxConcurrent(hosts: string[], since?: number, client?: string): number;
  /** the most connections opened to `hosts` together within any window of `windowMs` (from `client` only when given) */
  maxOpenedWithin(hosts: string[], windowMs: number, since?: number, client?: string): number;
  stop(): Promise<void>;
}

const defaultRcpt = (address: string) =>
  /^<?ok/i.test(address) ? '250 2.1.5 Ok' : `550 5.1.1 <${address.replace(/[<>]/g, '')}>: Recipient address rejected: User unknown`;

export async function startCountingSmtp(options: CountingSmtpOptions): Promise<CountingSmtp> {
  const port = options.port ?? (await freePort());
  const delay = options.replyDelayMs ?? 0;
  const connections: Connection[] = [];
  const perHost = new Map<string, number>();
  const sockets = new Set<net.Socket>();

  const servers = options.hosts.map((host) =>
    net.createServer((socket) => {
      const index = perHost.get(host) ?? 0;
      perHost.set(host, index + 1);
      const client = (socket.remoteAddress ?? '').replace(/^::ffff:/, '');
      const record: Connection = { host, client, helo: null, openedAt: performance.now(), closedAt: null, refused: options.refuse?.(host, index) ?? false };
      connections.push(record);
      sockets.add(socket);
      socket.on('close', () => {
        record.closedAt = performance.now();
        sockets.delete(socket);
      });
      socket.on('error', () => {});
      let closing = false;
      const reply = (line: string, close = false) => {
        setTimeout(() => {
          if (socket.destroyed) return;
          socket.write(`${line}\r\n`);
          if (close) socket.end();
        }, delay);
      };
      if (record.refused) {
        socket.resume(); // read (and drop) what the client says, so its FIN closes the connection
        return reply('421 4.7.0 Too many connections, try again later', true);
      }
      reply('220 mx.counting.test ESMTP');
      let buffered = '';
      socket.on('data', (chunk) => {
        buffered += chunk.toString('latin1');
        let end: number;
        while (!closing && (end = buffered.indexOf('\r\n')) >= 0) {
          const line = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          const verb = line.slice(0, 4).toUpperCase();
          if (verb === 'EHLO' || verb === 'HELO') {
            record.helo = line.slice(5).trim();
            reply('250 mx.counting.test');
          } else if (verb === 'MAIL') reply('250 2.1.0 Ok');
          else if (verb === 'RCPT') reply((options.rcpt ?? defaultRcpt)(line.slice(line.indexOf(':') + 1).trim(), client));
          else if (verb === 'RSET' || verb === 'NOOP') reply('250 2.0.0 Ok');
          else if (verb === 'QUIT') {
            closing = true;
            reply('221 2.0.0 Bye', true);
          } else reply('502 5.5.2 Error: command not recognized');
        }
      });
    }),
  );
  await Promise.all(
    servers.map(
      (server, i) =>
        new Promise<void>((resolve, reject) => {
          server.once('error', reject);
          server.listen(port, options.hosts[i], resolve);
        }),
    ),
  );

  return {
    port,
    connections,
    maxConcurrent(hosts, since = 0, client) {
      const events: [number, number][] = [];
      for (const c of connections) {
        if (hosts.includes(c.host) && c.openedAt >= since && (client === undefined || c.client === client))
          events.push([c.openedAt, 1], [c.closedAt ?? Infinity, -1]);
      }
      events.sort((a, b) => a[0] - b[0] || a[1] - b[1]); // a close at the same instant first
      let open = 0;
      let most = 0;
      for (const [, step] of events) most = Math.max(most, (open += step));
      return most;
    },
    maxOpenedWithin(hosts, windowMs, since = 0, client) {
      const opened = connections
        .filter((c) => hosts.includes(c.host) && c.openedAt >= since && (client === undefined || c.client === client))
        .map((c) => c.openedAt)
        .sort((a, b) => a - b);
      let most = 0;
      for (let i = 0, j = 0; j < opened.length; j++) {
        while (opened[j]! - opened[i]! >= windowMs) i++;
        most = Math.max(most, j - i + 1);
      }
      return most;
    },
    async stop() {
      for (const socket of sockets) socket.destroy();
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    },
  };
}
