import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort, requireBinary, uidOf } from './common';

/**
 * A PostgreSQL server of a test's own (initdb into a temporary folder, trust auth, a free port on
 * 127.0.0.1), so a test can stop, kill or restart it mid-job without disturbing the machine's
 * cluster that every other test uses. Runs as the `postgres` user when started as root.
 */
export interface PrivatePostgres {
  /** `postgresql://postgres@127.0.0.1:<port>/postgres` */
  adminUrl: string;
  /** a new empty database on this server */
  database(name?: string): Promise<string>;
  /** `pg_ctl restart -m fast`: connections are cut, the server is back when it resolves */
  restart(): Promise<void>;
  stop(mode?: 'fast' | 'immediate'): void;
  start(): Promise<void>;
  close(): Promise<void>;
}

function binDir(): string {
  const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
  const dir = `/usr/lib/postgresql/${versions[0]}/bin`;
  requireBinary(`${dir}/pg_ctl`, 'postgresql');
  return dir;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = binDir();
  const root = mkdtempSync(join(tmpdir(), 'ev-pg-'));
  chmodSync(root, 0o777);
  const data = join(root, 'data');
  const port = await freePort();
  const asRoot = process.getuid?.() === 0;
  const user = asRoot ? uidOf('postgres') : undefined;
  const run = (tool: string, args: string[]) => execFileSync(join(bin, tool), args, { ...(user ?? {}), stdio: ['ignore', 'ignore', 'pipe'], cwd: root });
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
  const options = `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  const start = async () => {
    run('pg_ctl', ['-D', data, '-o', options, '-l', join(root, 'log'), '-w', 'start']);
    await waitReady(`postgresql://postgres@127.0.0.1:${port}/postgres`);
  };
  const stop = (mode: 'fast' | 'immediate' = 'fast') => run('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop']);
  await start();
  const adminUrl = `postgresql://postgres@127.0.0.1:${port}/postgres`;
  let made = 0;
  return {
    adminUrl,
    async database(name = `ev_${process.pid}_${++made}`) {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`CREATE DATABASE ${name}`);
      await client.end();
      return adminUrl.replace(/\/postgres$/, `/${name}`);
    },
    async restart() {
      stop('fast');
      await start();
    },
    stop,
    start,
    async close() {
      try {
        stop('immediate');
      } catch {
        // already stopped
      }
      rmSync(root, { recursive: true, force: true });
    },
  };
}

async function waitReady(url: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`PostgreSQL at ${url} did not come up`);
}
