/** `npm run worker` processes for the multi-worker benches: started with their own environment, stopped by SIGTERM. */
import { spawn, type ChildProcess } from 'node:child_process';

const ROOT = new URL('..', import.meta.url).pathname;

/** A worker process on `env` (over this process's), once it has said it started. */
export async function startWorkerProcess(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/worker.ts'], {
    cwd: ROOT,
    env: { ...process.env, EV_ALLOW_PRIVATE_NETWORKS: 'true', EV_HELO_NAME: 'bench.test', EV_MAIL_FROM: 'check@bench.test', EV_EGRESS_POLICY: 'off', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      if (out.includes('started')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`worker exited ${code} before starting: ${out}`)));
  });
  return child;
}

/** SIGTERM (the worker hands its chunks back and exits), SIGKILL after 15 s. */
export async function stopWorker(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}
