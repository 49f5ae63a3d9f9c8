/** Starts `next start` on a free port against a fresh SQLite database, creates an API key, and samples the resident memory of the server's process tree. */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { scriptArgs } from '../test/scripts';
import { startSettings } from './start-settings';

const run = promisify(execFile);
const ROOT = new URL('..', import.meta.url).pathname;
const BIN = join(ROOT, 'node_modules/.bin');

export interface BenchServer {
  baseUrl: string;
  pid: number;
  apiKey: string;
  /** one key per account asked for (the first is apiKey) */
  apiKeys: string[];
  /** the exit code or signal, once the server ended */
  exited(): string | null;
  dbDir: string;
  /** the NODE_OPTIONS it runs with (the V8 flags of `npm start`) */
  nodeOptions: string;
  /** The last lines the server printed. */
  log(): string;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** Builds .next if it is missing (another process may be building: wait for it a little first). */
async function ensureBuilt(): Promise<void> {
  if (existsSync(join(ROOT, '.next/BUILD_ID'))) return;
  console.log('.next/BUILD_ID missing: running `next build` …');
  await run(join(BIN, 'next'), ['build'], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
}

export interface ServerOptions {
  /** environment for the server on top of this process's (the bench's own settings come first) */
  env?: Record<string, string>;
  /** accounts to create, each with a key (default 1; 0 on a database that has its accounts already) */
  accounts?: number;
}

export async function startServer(options: ServerOptions = {}): Promise<BenchServer> {
  await ensureBuilt();
  const dbDir = mkdtempSync(join(tmpdir(), 'ev-bench-'));
  // what `npm start` sets (package.json), so the bench measures the server as users run it
  const { startFlags, startDefaults } = startSettings(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.start as string);
  const env: NodeJS.ProcessEnv = {
    ...startDefaults,
    ...process.env,
    NODE_OPTIONS: [startFlags, process.env.NODE_OPTIONS].filter(Boolean).join(' '),
    DATABASE_URL: `file:${join(dbDir, 'bench.db')}`,
    EV_ALLOW_PRIVATE_NETWORKS: 'true',
    EV_ALLOW_PLACEHOLDER_IDENTITY: 'true', // local peers only: they take any HELO
    ...options.env,
  };
  const createKey = async (i: number) => {
    const { stdout } = await run(process.execPath, [...scriptArgs('scripts/create-key.ts'), '--email', i ? `bench${i}@example.com` : 'bench@example.com'], {
      cwd: ROOT,
      env,
    });
    const key = stdout.trim().split('\n').pop()!.trim();
    if (!key) throw new Error(`create-key printed no key:\n${stdout}`);
    return key;
  };
  // the first alone (it migrates a fresh database), the others at once
  const apiKeys: string[] = [];
  const accounts = options.accounts ?? 1;
  if (accounts > 0) apiKeys.push(await createKey(0));
  apiKeys.push(...(await Promise.all(Array.from({ length: Math.max(0, accounts - 1) }, (_, i) => createKey(i + 1)))));

  const port = await freePort();
  // own process group, so stop() can end the server and anything it spawned, and nothing else
  // BENCH_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") runs next under node with those flags;
  // BENCH_SERVER_LOG=<file> writes all it prints there too (e.g. with BENCH_NODE_ARGS=--trace-gc)
  const nodeArgs = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean);
  const [command, args] = nodeArgs?.length
    ? [process.execPath, [...nodeArgs, join(ROOT, 'node_modules/next/dist/bin/next'), 'start', '-p', String(port), '-H', '127.0.0.1']]
    : [join(BIN, 'next'), ['start', '-p', String(port), '-H', '127.0.0.1']];
  const child = spawn(command, args, {
    cwd: ROOT,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log: string[] = [];
  const logFile = process.env.BENCH_SERVER_LOG ? createWriteStream(process.env.BENCH_SERVER_LOG) : null;
  const keep = (b: Buffer) => {
    logFile?.write(b);
    log.push(b.toString());
    if (log.length > 200) log.shift();
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const killGroup = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      /* already gone */
    }
  };
  process.on('exit', killGroup);

  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`next start exited (${child.exitCode}):\n${log.join('')}`);
    try {
      const res = await fetch(`${baseUrl}/health`);
      if (res.ok) {
        await res.arrayBuffer();
        break;
      }
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      killGroup();
      throw new Error(`server did not come up in 60 s:\n${log.join('')}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }

  let exit: string | null = null;
  child.once('exit', (code, signal) => {
    exit = String(code ?? signal);
  });
  return {
    baseUrl,
    pid: child.pid!,
    apiKey: apiKeys[0]!,
    apiKeys,
    dbDir,
    nodeOptions: env.NODE_OPTIONS ?? '',
    exited: () => exit,
    async stop() {
      await stopChild(child);
      process.off('exit', killGroup);
      rmSync(dbDir, { recursive: true, force: true });
    },
    log: () => log.join(''),
  };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  try {
    process.kill(-child.pid!, 'SIGTERM');
  } catch {
    return;
  }
  const timer = setTimeout(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      /* gone */
    }
  }, 5000);
  await exited;
  clearTimeout(timer);
  // descendants in the group that outlived the parent
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    /* none left */
  }
}

/** pid plus all its descendants, from /proc. */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(name));
      children.set(ppid, list);
    } catch {
      /* exited meanwhile */
    }
  }
  const out: number[] = [];
  const stack = [root];
  while (stack.length) {
    const pid = stack.pop()!;
    out.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return out;
}

function rssKb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** CPU time (user + system) the tree's live processes have used so far, in ms (/proc, 10 ms ticks). */
export function treeCpuMs(root: number): number {
  let ticks = 0;
  for (const pid of processTree(root)) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of stat)
    } catch {
      /* exited meanwhile */
    }
  }
  return ticks * 10;
}

/** Current RSS of the whole tree in MB. */
export function treeRssMb(root: number): number {
  return processTree(root).reduce((sum, pid) => sum + rssKb(pid), 0) / 1024;
}

/** Samples the tree's RSS every `everyMs` until stopped; reports the start, peak and end values. */
export function sampleRss(root: number, everyMs = 100) {
  const samples: number[] = [treeRssMb(root)];
  const timer = setInterval(() => samples.push(treeRssMb(root)), everyMs);
  return {
    /** Peak so far (to split a phase, e.g. upload vs processing). */
    peakSoFar: () => Math.max(...samples, treeRssMb(root)),
    stop() {
      clearInterval(timer);
      samples.push(treeRssMb(root));
      return { startMb: samples[0], peakMb: Math.max(...samples), endMb: samples[samples.length - 1], samples: samples.length };
    },
  };
}
