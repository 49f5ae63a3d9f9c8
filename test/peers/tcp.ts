import net from 'node:net';

export interface TcpPeer {
  host: string;
  port: number;
  stop(): Promise<void>;
}

/**
 * Misbehaving SMTP servers that Postfix cannot be made to imitate:
 * - silent: accepts the connection and never says a word (no banner)
 * - drop: closes the connection right after accepting it
 * Bind them on another loopback address (127.0.0.2) with Postfix's port, so one verifier
 * configuration (one SMTP port) reaches all of them through DNS.
 */
export async function startTcpPeer(kind: 'silent' | 'drop', host: string, port: number): Promise<TcpPeer> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    if (kind === 'drop') socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  return {
    host,
    port: (server.address() as net.AddressInfo).port,
    async stop() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

export interface RecordingRelay extends TcpPeer {
  /** every command line clients sent, in order */
  lines: string[];
}

/**
 * A relay in front of a real server that records what clients say: lets a test count the
 * commands the verifier sent (e.g. how many catch-all probes) while the real Postfix answers.
 */
export async function startRecordingRelay(host: string, port: number, targetPort: number, targetHost = '127.0.0.1'): Promise<RecordingRelay> {
  const lines: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, targetHost);
    sockets.add(client).add(upstream);
    let partial = '';
    client.on('data', (data) => {
      partial += data.toString('latin1');
      const parts = partial.split('\r\n');
      partial = parts.pop()!;
      lines.push(...parts);
      upstream.write(data);
    });
    upstream.on('data', (data) => client.writable && client.write(data));
    upstream.on('close', () => client.end());
    client.on('close', () => upstream.destroy());
    for (const s of [client, upstream]) {
      s.on('error', () => {});
      s.on('close', () => sockets.delete(s));
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  return {
    host,
    port,
    lines,
    async stop() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
