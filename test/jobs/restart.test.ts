import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { q } from '@/lib/db/sql';
import { processedCount } from '@/lib/jobs/status/status';
import { submitQueued } from '@/lib/jobs/intake/submit';
import { DIALECTS } from '../databases';
import { setup } from '../api/harness';
import { scriptArgs } from '../scripts';

const TOTAL = 60_000;

function startWorker(url: string): ChildProcess {
  return spawn(process.execPath, scriptArgs('scripts/worker.ts'), {
    env: { ...process.env, DATABASE_URL: url, EV_LEASE_MS: '1500', EV_EMBEDDED_WORKER: 'false' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
}

const exited = (child: ChildProcess) => new Promise((resolve) => child.once('exit', resolve));

describe.each(DIALECTS)('a job survives its worker being killed (%s)', (dialect) => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  beforeAll(async () => {
    process.env.EV_CHUNK_SIZE = '1000';
    ctx = await setup(dialect);
  });
  afterAll(async () => {
    delete process.env.EV_CHUNK_SIZE;
    await ctx.teardown();
  });

  it('resumes after SIGKILL with every address verified exactly once', async () => {
    const emails = Array.from({ length: TOTAL }, (_, i) => `person${i}@restart.test`);
    const { jobId } = await submitQueued(ctx.database, { userId: ctx.account.id, sandbox: true, emails });
    const url = process.env.DATABASE_URL!;

    const first = startWorker(url);
    let seen = 0;
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      seen = await processedCount(ctx.database, jobId);
      if (seen >= 3000) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    first.kill('SIGKILL');
    await exited(first);
    const atKill = await processedCount(ctx.database, jobId);
    expect(atKill).toBeGreaterThan(0);
    expect(atKill).toBeLessThan(TOTAL);
    expect((await ctx.database.prisma.job.findUnique({ where: { id: jobId } }))!.status).toBe('processing');

    const second = startWorker(url);
    let status = '';
    while (Date.now() < deadline + 60_000) {
      status = (await ctx.database.prisma.job.findUnique({ where: { id: jobId } }))!.status;
      if (status === 'completed') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    second.kill('SIGTERM');
    await exited(second);
    expect(status).toBe('completed');
    const rows = await ctx.database.prisma.$queryRawUnsafe<{ n: number | bigint; distinct_idx: number | bigint; lo: number; hi: number }[]>(
      q(ctx.database.dialect, 'SELECT COUNT(*) AS n, COUNT(DISTINCT idx) AS distinct_idx, MIN(idx) AS lo, MAX(idx) AS hi FROM verifications WHERE job_id = ?'),
      jobId,
    );
    expect(Number(rows[0]!.n)).toBe(TOTAL);
    expect(Number(rows[0]!.distinct_idx)).toBe(TOTAL);
    expect([Number(rows[0]!.lo), Number(rows[0]!.hi)]).toEqual([0, TOTAL - 1]);
    const job = await ctx.database.prisma.job.findUnique({ where: { id: jobId } });
    expect(JSON.parse(job!.summary!)).toMatchObject({ total: TOTAL, failed: 0 });
  }, 180_000);
});
