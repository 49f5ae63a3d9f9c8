import net from 'node:net';

export interface TcpPeer { host: string; port: number; stop(): Promise<void> }

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
