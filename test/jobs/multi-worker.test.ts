import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { q } from '@/lib/db/sql';
import { processedCount } from '@/lib/jobs/status/status';
import { submitQueued } from '@/lib/jobs/intake/submit';
import { accountUsage, grantCredits } from '@/lib/accounts/quota';
import { sandboxVerdict } from '@/lib/verifier/sandbox';
import { isChargeable } from '@/lib/results/chargeable';
import { setup } from '../api/harness';
import { scriptArgs } from '../scripts';

// Three worker processes share one PostgreSQL; one dies by SIGKILL mid-job. Production-mode
// accounting runs with the sandbox engine plugged in (EV_PRODUCTION_ENGINE=sandbox).
const TOTAL = Number(process.env.EV_TEST_SCALE ?? 100_000);
const CREDITS = 150_000;

function startWorker(url: string): ChildProcess {
  return spawn(process.execPath, scriptArgs('scripts/worker.ts'), {
    env: { ...process.env, DATABASE_URL: url, EV_LEASE_MS: '2000', EV_PRODUCTION_ENGINE: 'sandbox', EV_WORKER_CONCURRENCY: '50' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

const exited = (child: ChildProcess): Promise<number | null> =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve(child.exitCode)
    : new Promise((resolve) => child.once('exit', (code) => resolve(code)));

describe('three workers on PostgreSQL, one killed', () => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  beforeAll(async () => {
    process.env.EV_CHUNK_SIZE = '100';
    process.env.EV_PRODUCTION_ENGINE = 'sandbox';
    ctx = await setup('postgres');
  });
  afterAll(async () => {
    delete process.env.EV_CHUNK_SIZE;
    delete process.env.EV_PRODUCTION_ENGINE;
    await ctx.teardown();
  });

  it('completes with every address once and credits charged once', async () => {
    await grantCredits(ctx.database, ctx.account.id, CREDITS);
    const emails = Array.from({ length: TOTAL }, (_, i) => (i % 1000 === 0 ? `broken address ${i}` : `user${i}@scale.test`));
    const queued = await submitQueued(ctx.database, { userId: ctx.account.id, sandbox: false, emails });
    const valid = queued.validEmails;
    expect(valid).toBe(TOTAL - TOTAL / 1000);
    // Reserved up front: the 100 free ones of today, the rest from credits.
    expect(await accountUsage(ctx.database, ctx.account.id)).toMatchObject({ freeRemainingToday: 0, credits: CREDITS - (valid - 100) });

    const url = process.env.DATABASE_URL!;
    const workers = [startWorker(url), startWorker(url), startWorker(url)];
    const deadline = Date.now() + 240_000;
    while (Date.now() < deadline && (await processedCount(ctx.database, queued.jobId)) < TOTAL * 0.15) await new Promise((r) => setTimeout(r, 50));
    workers[1]!.kill('SIGKILL');
    let status = '';
    while (Date.now() < deadline) {
      status = (await ctx.database.prisma.job.findUnique({ where: { id: queued.jobId } }))!.status;
      if (status === 'completed') break;
      await new Promise((r) => setTimeout(r, 200));
    }
    // SIGTERM: each survivor stops claiming and exits by itself.
    const stopping = Date.now();
    for (const w of [workers[0]!, workers[2]!]) w.kill('SIGTERM');
    expect(await Promise.all(workers.map(exited))).toEqual([0, null, 0]);
    expect(Date.now() - stopping).toBeLessThan(15_000);
    expect(status).toBe('completed');

    const [row] = await ctx.database.prisma.$queryRawUnsafe<{ n: bigint; d: bigint }[]>(
      q('postgres', 'SELECT COUNT(*) AS n, COUNT(DISTINCT idx) AS d FROM verifications WHERE job_id = ?'),
      queued.jobId,
    );
    expect([Number(row!.n), Number(row!.d)]).toEqual([TOTAL, TOTAL]);
    // Charged once: what the sandbox engine answers definitively, nothing for `unknown` or bad syntax.
    const chargeable = emails.filter((e) => isChargeable(sandboxVerdict(e))).length;
    const usage = await accountUsage(ctx.database, ctx.account.id);
    expect(usage.usedToday + (CREDITS - usage.credits)).toBe(chargeable);
    expect(usage.usedToday).toBe(100);
  }, 300_000);
});
