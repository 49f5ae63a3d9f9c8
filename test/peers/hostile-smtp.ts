import net from 'node:net';

/**
 * SMTP servers an attacker could put behind a public MX, for the limits in lib/verifier/smtp.ts:
 * - endless-continuation: a normal banner, then "250-..." lines after EHLO as fast as the client reads
 * - banner-without-newline: the banner never ends: bytes with no line break, forever
 * - many-short-lines: a banner of 100,000 "220-" lines before the last one
 * - trickle: a banner line, then one continuation line every `trickleMs` (a gigabyte at that pace)
 * - greet-flood: a normal banner, then unrequested replies flood in before any command is sent
 */
export type HostileKind = 'endless-continuation' | 'banner-without-newline' | 'many-short-lines' | 'trickle' | 'greet-flood';

export interface HostileSmtp {
  host: string;
  port: number;
  /** bytes written to clients so far, and connections accepted */
  stats(): { bytesSent: number; connections: number };
  stop(): Promise<void>;
}

export async function startHostileSmtp(kind: HostileKind, options: { host?: string; port?: number; trickleMs?: number } = {}): Promise<HostileSmtp> {
  const sockets = new Set<net.Socket>();
  let bytesSent = 0;
  let connections = 0;
  const line = (text: string) => Buffer.from(`${text}\r\n`);
  const block = (text: string, count: number) => Buffer.concat(Array.from({ length: count }, () => line(text)));

  const server = net.createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    const send = (chunk: Buffer) => {
      if (socket.destroyed) return false;
      bytesSent += chunk.length;
      return socket.write(chunk);
    };
    // writes `chunk` again whenever the client has read the last one, until it hangs up
    const flood = (chunk: Buffer) => {
      const pump = () => {
        while (send(chunk)) {
          /* until the socket buffer is full */
        }
      };
      socket.on('drain', pump);
      pump();
    };
    switch (kind) {
      case 'endless-continuation':
        send(line('220 mx.hostile.test ESMTP'));
        socket.once('data', () => flood(block(`250-${'x'.repeat(70)}`, 1000)));
        break;
      case 'banner-without-newline':
        flood(Buffer.from(`220 ${'y'.repeat(8192)}`));
        break;
      case 'many-short-lines': {
        const lines = block('220-hi', 100_000);
        send(lines);
        send(line('220 ready'));
        socket.on('data', () => send(line('250 ok')));
        break;
      }
      case 'trickle': {
        send(line('220-mx.hostile.test ESMTP'));
        const timer = setInterval(() => send(line('220-still here')), options.trickleMs ?? 500);
        socket.on('close', () => clearInterval(timer));
        break;
      }
      case 'greet-flood':
        send(line('220 mx.hostile.test ESMTP'));
        flood(block('250 2.0.0 ok', 1000));
        break;
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve);
  });
  return {
    host: options.host ?? '127.0.0.1',
    port: (server.address() as net.AddressInfo).port,
    stats: () => ({ bytesSent, connections }),
    async stop() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
