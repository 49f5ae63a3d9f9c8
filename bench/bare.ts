/**
 * The yardstick for the sandbox single call: a bare Next.js app of the project's own Next.js
 * version, a GET route handler returning a small JSON and a POST one doing the single check's HTTP
 * work (ECHO below), built and started from the project's
 * node_modules (symlinked into a scratch folder; nothing is downloaded). Whatever the project's
 * route costs beyond this app is the project's own doing, not Next.js's.
 */
import { createHash } from 'node:crypto';
import { spawn, execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './server';

const run = promisify(execFile);
const ROOT = new URL('..', import.meta.url).pathname;
const NEXT = join(ROOT, 'node_modules/next/dist/bin/next');

export interface BareServer {
  baseUrl: string;
  pid: number;
  /** the path of its GET route */
  path: string;
  /** the path of its POST route, the single check's HTTP work alone */
  echoPath: string;
  stop(): Promise<void>;
}

const ROUTE = `export const dynamic = 'force-dynamic';
export async function GET() {
  return Response.json({ ok: true, service: 'bare', time: Date.now() });
}
`;

/**
 * The same HTTP work as the sandbox single check and nothing else: a POST whose JSON body is read and
 * parsed, answered with a JSON of the single result's fields and size (docs/api.md's example). What
 * the single check costs beyond it is the project's code, not Next.js's handling of a body.
 */
const ECHO = `export const dynamic = 'force-dynamic';
export async function POST(request) {
  const { email } = await request.json();
  return Response.json({ email, normalized_email: email, valid: true, deliverable: true, risk_level: 'low', provider: 'example.com',
    mailbox_provider: null, response_time: 1, confidence: 95, details: { syntax_valid: true, domain_exists: true, mx_record: true, smtp_valid: true },
    reason: 'accepted_email', sub_reason: null, cached: false, status: 'deliverable', score: 95, disposable: false, role: false,
    free: false, catch_all: false, did_you_mean: null, evidence: null, rule_id: null, sandbox: true });
}
`;

/** Writes the app (once per Next.js version) and builds it; returns its folder. */
async function buildBareApp(): Promise<string> {
  const version = JSON.parse(readFileSync(join(ROOT, 'node_modules/next/package.json'), 'utf8')).version as string;
  // per checkout too: the build holds absolute paths into the node_modules it was built against
  const dir = join(tmpdir(), `ev-bench-bare2-next-${version}-${createHash('sha256').update(ROOT).digest('hex').slice(0, 8)}`);
  if (existsSync(join(dir, '.next/BUILD_ID'))) return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'app/ping'), { recursive: true });
  mkdirSync(join(dir, 'app/echo'), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'bare-next', private: true, type: 'module' }));
  // node_modules is a symlink out of this folder: Turbopack follows it only inside its root
  writeFileSync(join(dir, 'next.config.js'), `export default { poweredByHeader: false, turbopack: { root: '/' } };\n`);
  writeFileSync(join(dir, 'app/ping/route.js'), ROUTE);
  writeFileSync(join(dir, 'app/echo/route.js'), ECHO);
  writeFileSync(join(dir, 'app/layout.js'), `export default function Layout({ children }) { return children; }\n`);
  console.log(`building the bare Next.js ${version} app in ${dir} …`);
  await run(process.execPath, [NEXT, 'build'], { cwd: dir, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' } });
  return dir;
}

/** Builds (if needed) and starts the bare app with the same heap flag `npm start` gives the project. */
export async function startBareServer(nodeOptions: string): Promise<BareServer> {
  const dir = await buildBareApp();
  const port = await freePort();
  const child = spawn(process.execPath, [NEXT, 'start', '-p', String(port), '-H', '127.0.0.1'], {
    cwd: dir,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NODE_OPTIONS: nodeOptions, NEXT_TELEMETRY_DISABLED: '1' },
  });
  const log: string[] = [];
  child.stdout!.on('data', (b: Buffer) => log.push(b.toString()));
  child.stderr!.on('data', (b: Buffer) => log.push(b.toString()));
  const killGroup = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      /* gone */
    }
  };
  process.on('exit', killGroup);
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`bare next start exited (${child.exitCode}):\n${log.join('')}`);
    try {
      const res = await fetch(`${baseUrl}/ping`);
      if (res.ok) {
        await res.arrayBuffer();
        break;
      }
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      killGroup();
      throw new Error(`bare app did not come up in 60 s:\n${log.join('')}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    baseUrl,
    pid: child.pid!,
    path: '/ping',
    echoPath: '/echo',
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise<void>((r) => child.once('exit', () => r()));
        try {
          process.kill(-child.pid!, 'SIGTERM');
        } catch {
          /* gone */
        }
        const timer = setTimeout(killGroup, 5000);
        await exited;
        clearTimeout(timer);
      }
      killGroup();
      process.off('exit', killGroup);
    },
  };
}
