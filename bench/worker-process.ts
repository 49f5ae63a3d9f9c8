/** `npm run worker` processes for the multi-worker benches: started with their own environment, stopped by SIGTERM. */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Database } from '../lib/db/client';

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

/** Polls the job until it completes; throws when it fails, a worker dies or `timeoutMs` pass. */
export async function waitForJob(database: Database, jobId: string, workers: ChildProcess[], timeoutMs: number, pollMs = 100): Promise<void> {
  const since = performance.now();
  for (;;) {
    const job = await database.prisma.job.findUnique({ where: { id: jobId }, select: { status: true } });
    if (job?.status === 'completed') return;
    if (job?.status === 'failed' || performance.now() - since > timeoutMs)
      throw new Error(`job ${jobId} is ${job?.status} after ${Math.round(performance.now() - since)} ms`);
    for (const child of workers) if (child.exitCode !== null) throw new Error(`a worker exited with ${child.exitCode}`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
