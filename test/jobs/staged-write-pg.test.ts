import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type StagedWrite, writeStaged } from '@/lib/db/staged-write';
import { pauseAt } from '@/lib/failpoints/failpoints';
import { submitQueued } from '@/lib/jobs/intake/submit';
import { engine } from '@/lib/jobs/queue/pgboss-engine';
import { setup } from '../api/harness';

// PostgreSQL writes a queued job (its row, items, chunks, pg-boss deliveries and audit row) in one
// transaction on a connection of the adapter's pool, not through Prisma (lib/db/staged-write.ts):
// all of it commits together, nothing is visible before, and a failure anywhere leaves nothing.
describe('a queued job written on PostgreSQL', () => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  beforeAll(async () => {
    ctx = await setup('postgres', { EV_CHUNK_SIZE: '10' });
    await engine(ctx.database);
  });
  afterAll(async () => ctx?.teardown());

  const emails = (tag: string) => Array.from({ length: 25 }, (_, i) => `a${i % 20}@${tag}.test`);
  /** what another connection sees of a job: its row, items, chunks, deliveries and audit rows */
  const visible = async (jobId: string) => {
    const { prisma } = ctx.database;
    const count = async (sql: string) => Number((await prisma.$queryRawUnsafe<{ n: bigint }[]>(sql, jobId))[0]!.n);
    return {
      job: await count('SELECT COUNT(*) AS n FROM jobs WHERE id = $1'),
      items: await count('SELECT COUNT(*) AS n FROM job_items WHERE job_id = $1'),
      chunks: await count('SELECT COUNT(*) AS n FROM job_chunks WHERE job_id = $1'),
      deliveries: await count(`SELECT COUNT(*) AS n FROM pgboss.job WHERE data->>'job' = $1`),
      audit: await count(`SELECT COUNT(*) AS n FROM audit_events WHERE target_id = $1`),
    };
  };
  const inUse = () => ctx.database.pool!.totalCount - ctx.database.pool!.idleCount;
  const submit = (tag: string) => submitQueued(ctx.database, { userId: ctx.account.id, sandbox: true, emails: emails(tag) });

  it('writes the job, its items, chunks, deliveries and audit row together, not through Prisma', async () => {
    const transaction = vi.spyOn(ctx.database.prisma, '$transaction');
    const before = Date.now();
    try {
      const { jobId } = await submit('whole');
      expect(transaction).not.toHaveBeenCalled();
      expect(await visible(jobId)).toEqual({ job: 1, items: 25, chunks: 3, deliveries: 3, audit: 1 });
      const job = await ctx.database.prisma.job.findUniqueOrThrow({ where: { id: jobId } });
      expect([job.status, job.totalEmails, job.duplicateEmails]).toEqual(['queued', 25, 5]);
      // the time as Prisma reads it back: written as UTC, as Prisma writes it
      expect(job.createdAt.getTime()).toBeGreaterThanOrEqual(before - 1_000);
      expect(job.createdAt.getTime()).toBeLessThanOrEqual(Date.now() + 1_000);
      const items = await ctx.database.prisma.jobItem.findMany({ where: { jobId }, orderBy: { idx: 'asc' } });
      expect(items.map((item) => [item.email, item.duplicateOf])).toEqual(emails('whole').map((email, idx) => [email, idx < 20 ? null : idx - 20]));
    } finally {
      transaction.mockRestore();
    }
    expect(inUse()).toBe(0);
  });

  /** every job, item, chunk, delivery and upload's audit row, whatever its job */
  const all = async () => {
    const count = async (sql: string) => Number((await ctx.database.prisma.$queryRawUnsafe<{ n: bigint }[]>(sql))[0]!.n);
    return {
      job: await count('SELECT COUNT(*) AS n FROM jobs'),
      items: await count('SELECT COUNT(*) AS n FROM job_items'),
      chunks: await count('SELECT COUNT(*) AS n FROM job_chunks'),
      deliveries: await count(`SELECT COUNT(*) AS n FROM pgboss.job WHERE name LIKE 'ev-chunks-%'`),
      audit: await count(`SELECT COUNT(*) AS n FROM audit_events WHERE action = 'list.uploaded'`),
    };
  };
  const firstJob = { job: 1, items: 25, chunks: 3, deliveries: 3, audit: 1 };

  it('shows nothing before its commit, and leaves nothing when its connection is lost there', async () => {
    expect(await all()).toEqual(firstJob);
    const pause = pauseAt('job.staged-before-commit');
    const failed = submit('lost').then(
      () => null,
      (error: Error) => error,
    );
    await pause.reached;
    // every row written, none of them visible to another connection
    expect(await all()).toEqual(firstJob);
    // the server ends the held connection (a restart, a kill): the process lives on, the write fails
    const ended = await ctx.database.prisma.$queryRawUnsafe<unknown[]>(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND state = 'idle in transaction'`,
    );
    expect(ended).toHaveLength(1);
    pause.resume();
    expect(await failed).toBeInstanceOf(Error);
    expect(await all()).toEqual(firstJob);
    expect(inUse()).toBe(0);
  });

  it('rolls back the job, its items and chunks when the deliveries fail', async () => {
    const { boss } = await engine(ctx.database);
    const insert = vi.spyOn(boss, 'insert').mockRejectedValueOnce(new Error('deliveries refused'));
    try {
      await expect(submit('refused')).rejects.toThrow('deliveries refused');
    } finally {
      insert.mockRestore();
    }
    expect(await all()).toEqual(firstJob);
    expect(inUse()).toBe(0);
    // the pool is whole: the next job is written
    const { jobId } = await submit('after');
    expect(await visible(jobId)).toEqual({ job: 1, items: 25, chunks: 3, deliveries: 3, audit: 1 });
  });

  it('copies items whose text holds tabs, newlines, backslashes, NUL and the words of NULL as they were', async () => {
    const odd = ['a\tb@x.test', 'back\\slash@x.test', 'line\nbreak@x.test', 'cr\r@x.test', '\\N', 'NULL', 'nul\u0000@x.test', 'ünï@x.test', ''];
    const list = [...odd, ...Array.from({ length: 11 }, (_, i) => `plain${i}@x.test`)];
    const rows = list.map((email, i) => JSON.stringify([email, i % 2 ? 'tab\there' : 'back\\slash "quoted"']));
    const { jobId } = await submitQueued(ctx.database, { userId: ctx.account.id, sandbox: true, emails: list, rows, columns: ['email', 'note'] });
    const items = await ctx.database.prisma.jobItem.findMany({ where: { jobId }, orderBy: { idx: 'asc' } });
    expect(items.map((item) => item.email)).toEqual(list.map((email) => email.replaceAll('\u0000', '\uFFFD')));
    expect(items.map((item) => item.row)).toEqual(rows);
  });

  /** a write of `count` items under a `job_progress` head row, its items made by `cells` */
  const plan = (jobId: string, count: number, cells: StagedWrite['body']['cells']): StagedWrite => ({
    head: { row: () => ({ table: 'job_progress', columns: ['job_id', 'processed'], rows: [[jobId, 0]] }) },
    body: { table: 'job_items', columns: ['job_id', 'idx', 'email'], count, cells },
    copies: [],
    tail: { table: 'job_chunks', columns: ['job_id', 'no', 'start_idx', 'end_idx'], rows: [[jobId, 0, 0, count]] },
    enqueue: async () => undefined,
    alongside: null,
    undo: [],
  });
  const left = async (jobId: string) => ({
    head: await ctx.database.prisma.jobProgress.count({ where: { jobId } }),
    items: await ctx.database.prisma.jobItem.count({ where: { jobId } }),
    chunks: await ctx.database.prisma.jobChunk.count({ where: { jobId } }),
  });

  it('leaves nothing when the copy fails part way: an item that cannot be made, or one the database refuses', async () => {
    const unmade = plan('staged-unmade', 30_000, (values, idx) => {
      if (idx === 25_000) throw new Error('item 25000 cannot be made');
      values.push('staged-unmade', idx, `e${idx}@x.test`);
    });
    await expect(writeStaged(ctx.database, unmade)).rejects.toThrow('item 25000 cannot be made');
    expect(await left('staged-unmade')).toEqual({ head: 0, items: 0, chunks: 0 });
    // idx 20000 twice: the primary key refuses the second, sent after the first pieces were stored
    const twice = plan('staged-twice', 30_000, (values, idx) => values.push('staged-twice', idx === 25_000 ? 20_000 : idx, `e${idx}@x.test`));
    await expect(writeStaged(ctx.database, twice)).rejects.toThrow(/duplicate key/);
    expect(await left('staged-twice')).toEqual({ head: 0, items: 0, chunks: 0 });
    expect(inUse()).toBe(0);
    await writeStaged(
      ctx.database,
      plan('staged-whole', 250_000, (values, idx) => values.push('staged-whole', idx, `e${idx}@x.test`)),
    );
    expect(await left('staged-whole')).toEqual({ head: 1, items: 250_000, chunks: 1 });
  }, 60_000);
});
