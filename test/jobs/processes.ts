import { spawn, type ChildProcess } from 'node:child_process';
import { useDatabase, type Database } from '@/lib/db/client';
import { q } from '@/lib/db/sql';
import { chargeableCount } from '@/lib/results/chargeable';
import { startPrivatePostgres, type PrivatePostgres } from '../peers/postgres';
import { scriptArgs } from '../scripts';

/**
 * Real `scripts/worker.ts` processes for the fault tests (test/jobs/*-faults.test.ts): started with
 * env overrides (failpoints among them), killed with SIGKILL, and the books read back by SQL.
 */
export interface WorkerProcess {
  child: ChildProcess;
  /** resolves with the exit code, or the signal's name */
  exited: Promise<string>;
  output(): string;
  kill(signal?: NodeJS.Signals): Promise<string>;
}

export async function startWorkerProcess(env: Record<string, string>): Promise<WorkerProcess> {
  const child = spawn(process.execPath, scriptArgs('scripts/worker.ts'), {
    env: { ...process.env, EV_EMBEDDED_WORKER: 'false', EV_EGRESS_POLICY: 'off', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (chunk) => (out += chunk));
  child.stderr!.on('data', (chunk) => (out += chunk));
  const exited = new Promise<string>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? String(code))));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not start: ${out}`)), 60_000);
    child.stdout!.on('data', () => {
      if (!out.includes('started')) return;
      clearTimeout(timer);
      resolve();
    });
    void exited.then((how) => {
      clearTimeout(timer);
      if (out.includes('started')) resolve();
      else reject(new Error(`worker exited ${how}: ${out}`));
    });
  });
  return {
    child,
    exited,
    output: () => out,
    async kill(signal = 'SIGKILL') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

export async function jobStatusOf({ prisma }: Database, jobId: string): Promise<string> {
  return (await prisma.job.findUniqueOrThrow({ where: { id: jobId } })).status;
}

export async function waitFor<T>(read: () => Promise<T>, ok: (value: T) => boolean, ms: number, what: string): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > end) throw new Error(`${what}: still ${JSON.stringify(value)} after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * A job's books, for an account that has only this job: what the account paid (credits and free
 * checks gone), what the job's stored results make chargeable, how many rows it stored and whether
 * any address is stored twice, and its `bulk.completed`/`bulk.failed` events.
 */
export async function booksOf(database: Database, userId: string, jobId: string, granted: number) {
  const { prisma, dialect } = database;
  const user = await prisma.user.findUniqueOrThrow({ where: { id: userId } });
  const usage = await prisma.usageDay.findMany({ where: { userId } });
  const freeUsed = usage.reduce((n, day) => n + day.used, 0);
  const [rows] = await prisma.$queryRawUnsafe<{ n: number | bigint; d: number | bigint }[]>(
    q(dialect, 'SELECT COUNT(*) AS n, COUNT(DISTINCT idx) AS d FROM verifications WHERE job_id = ?'),
    jobId,
  );
  const events = await prisma.$queryRawUnsafe<{ n: number | bigint }[]>(
    q(dialect, `SELECT COUNT(*) AS n FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE w.user_id = ?`),
    userId,
  );
  return {
    /** credits and free checks the account no longer has */
    paid: granted - user.credits + freeUsed,
    chargeable: await chargeableCount(prisma, dialect, jobId),
    stored: Number(rows!.n),
    distinct: Number(rows!.d),
    /** webhook events written for the account (subscribe with `subscribe` first) */
    deliveries: Number(events[0]!.n),
  };
}

/** A webhook for every job event, created directly (its URL is never reached: the events are counted in the outbox). */
export async function subscribe({ prisma }: Database, userId: string): Promise<void> {
  await prisma.webhook.create({
    data: {
      id: `wh_${Math.random().toString(36).slice(2)}`,
      userId,
      url: 'http://192.0.2.1/hook',
      secret: 'whsec_test',
      events: JSON.stringify(['bulk.completed', 'bulk.failed']),
    },
  });
}

/**
 * A database on a PostgreSQL server of the test's own, so the test may restart it mid-job: this
 * process uses it (DATABASE_URL) with `env` set beside it; `close()` puts the environment back and
 * stops the server.
 */
export async function restartableDatabase(
  env: Record<string, string>,
): Promise<{ pg: PrivatePostgres; url: string; database: Database; close(): Promise<void> }> {
  const pg = await startPrivatePostgres();
  const url = await pg.database();
  const saved = Object.fromEntries(['DATABASE_URL', ...Object.keys(env)].map((name) => [name, process.env[name]]));
  Object.assign(process.env, { DATABASE_URL: url, ...env });
  const database = await useDatabase(url);
  return {
    pg,
    url,
    database,
    async close() {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      await database.prisma.$disconnect();
      await pg.close();
    },
  };
}
