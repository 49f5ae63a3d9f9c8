import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, requireBinary } from './common';

export interface DantePeer {
  host: string;
  port: number;
  /** socks5://127.0.0.1:<port>, for EV_SMTP_PROXY */
  url: string;
  /** dante's log so far: one line per passed or blocked connection */
  log(): string;
  stop(): Promise<void>;
}

export interface DanteOptions {
  /** destinations refused with SOCKS reply 2 ("not allowed by ruleset"), e.g. 127.0.0.1/32 */
  block?: string[];
}

/**
 * A private Dante SOCKS5 server (Debian's dante-server) on 127.0.0.1:<free port> with its config,
 * pid file and log in a temp dir; nothing under /etc is touched. No authentication: Dante's
 * username method checks system accounts, which a test should not create. Needs root to start
 * (it then runs as nobody).
 */
export async function startDante(options: DanteOptions = {}): Promise<DantePeer> {
  requireBinary('/usr/sbin/danted', 'dante-server');
  const dir = mkdtempSync(join(tmpdir(), 'ev-dante-'));
  const port = await freePort();
  const logFile = join(dir, 'log');
  const conf = join(dir, 'danted.conf');
  writeFileSync(
    conf,
    `
logoutput: ${logFile}
internal: 127.0.0.1 port = ${port}
external: 127.0.0.1
clientmethod: none
socksmethod: none
user.privileged: root
user.unprivileged: nobody
client pass {
  from: 127.0.0.0/8 to: 0.0.0.0/0
  log: error
}
${(options.block ?? [])
  .map(
    (to) => `socks block {
  from: 0.0.0.0/0 to: ${to}
  log: connect error
}
`,
  )
  .join('')}socks pass {
  from: 127.0.0.0/8 to: 0.0.0.0/0
  command: connect
  log: connect disconnect error
}
`,
  );
  // its own process group: Dante forks a dozen children, and stop() must see them all gone
  const child = spawn('/usr/sbin/danted', ['-f', conf, '-p', join(dir, 'pid'), '-N', '1'], { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  const group = child.pid!;
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const log = () => {
    try {
      return readFileSync(logFile, 'utf8');
    } catch {
      return '';
    }
  };
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      process.kill(-group, 'SIGTERM');
      await exited;
    }
    for (let i = 0; liveInGroup(group) > 0; i++) {
      if (i === 40)
        try {
          process.kill(-group, 'SIGKILL');
        } catch {
          /* gone meanwhile */
        }
      if (i === 80) throw new Error(`danted processes of group ${group} do not exit`);
      await new Promise((r) => setTimeout(r, 50));
    }
    // EV_KEEP_PEERS=1 keeps the temp dir, to read the log after a failing test
    if (!process.env.EV_KEEP_PEERS) rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitForListener(port, () => child.exitCode !== null);
  } catch (error) {
    const detail = `${stderr}${log()}`;
    await stop();
    throw new Error(`${(error as Error).message}: ${detail}`);
  }
  return { host: '127.0.0.1', port, url: `socks5://127.0.0.1:${port}`, log, stop };
}

/** Processes of the group that have not exited yet (zombies waiting for init to reap them do not count). */
function liveInGroup(group: number): number {
  let live = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) === group && state !== 'Z' && state !== 'X') live++;
    } catch {
      /* gone meanwhile */
    }
  }
  return live;
}

async function waitForListener(port: number, exited: () => boolean): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (exited()) throw new Error('danted exited');
    const ok = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`danted did not listen on 127.0.0.1:${port}`);
}
