import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, uidOf } from './common';

/** Where scripts/test.sh unpacks Debian's exim4-daemon-light (it cannot be installed beside Postfix). */
export const EXIM_ROOT = process.env.EV_EXIM_ROOT ?? '/opt/ev-peers/exim';

export interface EximPeer {
  host: string;
  port: number;
  stop(): Promise<void>;
}

export interface EximOptions {
  /** existing mailboxes, e.g. alice@exim.test; others get Exim's "550 Unrouteable address" */
  mailboxes: string[];
  /** domains whose every address is accepted */
  catchAllDomains?: string[];
  /** recipients_max: more RCPTs in one transaction get "452 too many recipients" */
  recipientsMax?: number;
  host?: string;
  port?: number;
}

/**
 * A private Exim 4 daemon (Debian's build, run from EXIM_ROOT with its own configuration, spool
 * and logs in a temp dir), answering RCPT as a stock Exim does: `verify = recipient` against a
 * router that knows the mailboxes. Needs root (it is here) and the Debian-exim user.
 */
export async function startExim(options: EximOptions): Promise<EximPeer> {
  const binary = join(EXIM_ROOT, 'usr/sbin/exim4');
  if (!existsSync(binary)) {
    throw new Error(
      `${binary} not found: bash scripts/test.sh unpacks Debian's exim4-daemon-light there (apt-get download exim4-daemon-light libidn12; dpkg -x each into ${EXIM_ROOT})`,
    );
  }
  const dir = mkdtempSync(join(tmpdir(), 'ev-exim-'));
  chmodSync(dir, 0o755);
  const [spool, log] = ['spool', 'log'].map((d) => join(dir, d));
  const nobody = uidOf('nobody');
  for (const d of [spool, log]) {
    mkdirSync(d);
    chownSync(d, nobody.uid, nobody.gid);
  }
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? (await freePort());
  const catchAll = options.catchAllDomains ?? [];
  const domains = [...new Set([...options.mailboxes.map((m) => m.split('@')[1]), ...catchAll])];
  writeFileSync(join(dir, 'mailboxes'), options.mailboxes.map((m) => `${m}: yes\n`).join(''));
  writeFileSync(
    join(dir, 'exim.conf'),
    `
primary_hostname = mx.exim.test
exim_user = nobody
exim_group = nogroup
spool_directory = ${spool}
log_file_path = ${log}/%slog
local_interfaces = <; ${host}
domainlist local_domains = ${domains.join(' : ') || 'exim.test'}
domainlist catch_all_domains = ${catchAll.join(' : ')}
acl_smtp_rcpt = acl_check_rcpt
tls_advertise_hosts =
${options.recipientsMax ? `recipients_max = ${options.recipientsMax}` : ''}

begin acl
acl_check_rcpt:
  require verify = recipient
  accept domains = +local_domains
  deny message = relay not permitted

begin routers
catch_all:
  driver = accept
  domains = +catch_all_domains
  transport = devnull
mailbox:
  driver = accept
  domains = +local_domains
  condition = \${lookup{$local_part@$domain}lsearch{${join(dir, 'mailboxes')}}{yes}{no}}
  transport = devnull

begin transports
devnull:
  driver = appendfile
  file = /dev/null
`,
  );
  const child: ChildProcess = spawn(binary, ['-C', join(dir, 'exim.conf'), '-bdf', '-oX', String(port), '-oP', join(dir, 'pid')], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, LD_LIBRARY_PATH: join(EXIM_ROOT, 'usr/lib/x86_64-linux-gnu') },
  });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  try {
    await waitForListener(host, port, child);
  } catch (error) {
    child.kill('SIGKILL');
    const mainlog = existsSync(join(log, 'mainlog')) ? readFileSync(join(log, 'mainlog'), 'utf8') : '';
    throw new Error(`exim did not start in ${dir}: ${stderr} ${mainlog} ${error}`);
  }
  return {
    host,
    port,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      if (!process.env.EV_KEEP_PEERS) rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function waitForListener(host: string, port: number, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) throw new Error(`exim exited ${child.exitCode}`);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, host, () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nothing listens on ${host}:${port}`);
}
