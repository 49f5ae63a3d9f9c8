import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, requireBinary } from './common';

export interface DnsPeer {
  /** "127.0.0.1:port", ready for Resolver.setServers */
  server: string;
  stop(): Promise<void>;
}

/**
 * Starts dnsmasq on loopback with the given config lines (mx-host=, host-record=, ...).
 * Every name under the `local` zones that is not configured answers NXDOMAIN.
 * Null MX (RFC 7505) is written `mx-host=nullmx.test,.,0`.
 */
export async function startDnsmasq(lines: string[], local = ['test']): Promise<DnsPeer> {
  requireBinary('/usr/sbin/dnsmasq', 'dnsmasq');
  const dir = mkdtempSync(join(tmpdir(), 'ev-dnsmasq-'));
  const conf = join(dir, 'dnsmasq.conf');
  writeFileSync(conf, [...lines, ...local.map((zone) => `local=/${zone}/`), 'local-ttl=60', ''].join('\n'));
  const port = await freePort();
  const child = spawn(
    '/usr/sbin/dnsmasq',
    [
      '--no-daemon',
      '--no-resolv',
      '--no-hosts',
      `--port=${port}`,
      '--listen-address=127.0.0.1',
      '--bind-interfaces',
      `--conf-file=${conf}`,
      `--pid-file=${join(dir, 'pid')}`,
      '--user=root',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  child.stderr!.on('data', (chunk) => (log += chunk));
  await waitForStart(child, () => log);
  return {
    server: `127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// dnsmasq prints "started" before it answers; an exit means a bad config line or busy port.
function waitForStart(child: ChildProcess, log: () => string): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      if (/cleared cache|started/.test(log())) {
        clearInterval(timer);
        setTimeout(resolve, 50);
      }
    }, 20);
    child.once('exit', (code) => {
      clearInterval(timer);
      reject(new Error(`dnsmasq exited ${code}: ${log()}`));
    });
  });
}
