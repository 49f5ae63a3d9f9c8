import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';

/** Fail loudly (never skip) when a peer binary is missing, and say how to get it. */
export function requireBinary(path: string, pkg: string): void {
  if (!existsSync(path)) {
    throw new Error(
      `${path} not found: install the Debian packages in scripts/apt-packages.txt (${pkg}), e.g. ` +
        `apt-get install -y $(cat scripts/apt-packages.txt), or run bash scripts/test.sh`,
    );
  }
}

/** A TCP port free on 127.0.0.1 right now (the OS picks it). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export function uidOf(user: string): { uid: number; gid: number } {
  return {
    uid: Number(execFileSync('id', ['-u', user]).toString().trim()),
    gid: Number(execFileSync('id', ['-g', user]).toString().trim()),
  };
}
