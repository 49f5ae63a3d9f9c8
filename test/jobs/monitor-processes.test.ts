import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxVerifier } from '@/lib/verifier/sandbox';
import { newId } from '@/lib/db/ids';
import { JobWorker } from '@/lib/jobs/worker/worker';
import { submitQueued } from '@/lib/jobs/intake/submit';
import { DIALECTS } from '../databases';
import { setup } from '../api/harness';
import { startWorkerProcess, waitFor, type WorkerProcess } from './processes';

// A monitor's run starts exactly once per period (issue 32, item 1) with three real worker processes
// looking for it every 50 ms, killed and restarted around its due time: one dies holding the monitor
// (failpoint monitor.after-hold), one as it is about to write the run (monitor.before-run), one is
// killed just before the due time and started again.
describe.each(DIALECTS)('monitor runs with workers killed around the due time (%s)', (dialect) => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  const workers: WorkerProcess[] = [];
  beforeAll(async () => {
    ctx = await setup(dialect, { EV_LEASE_MS: '1500', EV_CHUNK_SIZE: '10' });
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.kill()));
    await ctx?.teardown();
  });

  const start = async (extra: Record<string, string> = {}) => {
    const worker = await startWorkerProcess({
      DATABASE_URL: process.env.DATABASE_URL!,
      EV_MONITOR_POLL_MS: '50',
      EV_LEASE_MS: '1500',
      EV_CHUNK_SIZE: '10',
      ...extra,
    });
    workers.push(worker);
    return worker;
  };
  const runs = (monitorId: string) => ctx.database.prisma.job.findMany({ where: { monitorId }, orderBy: { createdAt: 'asc' } });
  const dueIn = (monitorId: string, ms: number) =>
    ctx.database.prisma.monitor.update({ where: { id: monitorId }, data: { nextRunAt: BigInt(Date.now() + ms) } });

  it("starts each period's run once", async () => {
    const emails = Array.from({ length: 30 }, (_, i) => `person${i}@example.com`);
    const { jobId: listId } = await submitQueued(ctx.database, { userId: ctx.account.id, sandbox: true, emails });
    const local = new JobWorker(ctx.database, { concurrency: 4, leaseMs: 5000, pollMs: 20, verifierFor: () => sandboxVerifier });
    local.start();
    await waitFor(
      () => ctx.database.prisma.job.findUniqueOrThrow({ where: { id: listId } }),
      (job) => job.status === 'completed',
      30_000,
      'list completed',
    );
    await local.stop();
    const monitor = await ctx.database.prisma.monitor.create({
      data: { id: newId('mon'), userId: ctx.account.id, listId, intervalDays: 30, nextRunAt: BigInt(Date.now() + 24 * 3600 * 1000) },
    });

    // period 1
    const [holder, writer, plain] = await Promise.all([
      start({ EV_TEST_FAILPOINTS: 'monitor.after-hold=exit' }),
      start({ EV_TEST_FAILPOINTS: 'monitor.before-run=exit' }),
      start(),
    ]);
    await dueIn(monitor.id, 1500);
    await new Promise((r) => setTimeout(r, 1200));
    await plain!.kill();
    const restarted = await start();
    const [run] = await waitFor(
      () => runs(monitor.id),
      (list) => list.length >= 1,
      60_000,
      'the first run',
    );
    // the processes that crashed around it are gone; whoever started it, it started once
    const crashed = await Promise.all(
      [holder!.exited, writer!.exited].map((exit) => Promise.race([exit, new Promise((r) => setTimeout(() => r('alive'), 5_000))])),
    );
    expect(crashed.filter((how) => how === 'SIGKILL').length).toBeGreaterThanOrEqual(1);
    await waitFor(
      () => ctx.database.prisma.job.findUniqueOrThrow({ where: { id: run!.id } }),
      (job) => job.status === 'completed',
      60_000,
      'the first run completed',
    );
    await new Promise((r) => setTimeout(r, 1000));
    expect((await runs(monitor.id)).length).toBe(1);
    expect((await ctx.database.prisma.monitor.findUniqueOrThrow({ where: { id: monitor.id } })).periods).toBe(1);

    // period 2: every worker is killed just before it is due and started again
    const fresh = await Promise.all([start(), start()]);
    await dueIn(monitor.id, 800);
    await new Promise((r) => setTimeout(r, 600));
    await Promise.all([restarted.kill(), ...fresh.map((w) => w.kill())]);
    await Promise.all([start(), start(), start()]);
    const both = await waitFor(
      () => runs(monitor.id),
      (list) => list.length >= 2,
      60_000,
      'the second run',
    );
    await waitFor(
      () => ctx.database.prisma.job.findUniqueOrThrow({ where: { id: both[1]!.id } }),
      (job) => job.status === 'completed',
      60_000,
      'the second run completed',
    );
    await new Promise((r) => setTimeout(r, 1000));
    const all = await runs(monitor.id);
    expect(all.length).toBe(2);
    expect(all[1]!.previousJobId).toBe(all[0]!.id);
    expect((await ctx.database.prisma.monitor.findUniqueOrThrow({ where: { id: monitor.id } })).periods).toBe(2);
    // each run verified every row exactly once
    for (const job of all) expect(await ctx.database.prisma.verification.count({ where: { jobId: job.id } })).toBe(30);
  }, 240_000);
});
