import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { freshDatabaseUrl } from '../../test/databases';
import { VERIFICATION_COLUMNS, VERIFICATION_PG_TYPES, verificationRow } from '../results/rows';
import { sandboxVerdict } from '../verifier/sandbox';
import { type Database, openDatabase } from './client';
import { type HeldInsert, insertWhileHeld } from './insert-while-held';

// PostgreSQL: a held save of column arrays (a chunk's results, lib/jobs/queue/ledger.ts) runs on a
// connection of the adapter's pool, not through Prisma (which JSON-encodes and decodes the arrays' text).
let database: Database;
let drop: () => Promise<void>;

beforeAll(async () => {
  const fresh = await freshDatabaseUrl('postgres');
  drop = fresh.drop;
  database = await openDatabase(fresh.url);
  await database.prisma.$executeRawUnsafe(`INSERT INTO job_progress (job_id, processed) VALUES ('held', 0)`);
});
afterAll(async () => {
  await database.prisma.$disconnect();
  await drop();
});

const row = (idx: number) =>
  verificationRow(sandboxVerdict(`e${idx}@x.test`), {
    userId: 'u',
    jobId: 'job',
    idx,
    sandbox: true,
    source: 'bulk',
    cached: false,
    at: 1_795_000_000_000 + idx,
  });

const plan = (holder: string, rows: unknown[][]): HeldInsert => ({
  held: { sql: 'SELECT 1 FROM job_progress WHERE job_id = ?', values: [holder] },
  table: 'verifications',
  columns: VERIFICATION_COLUMNS,
  types: VERIFICATION_PG_TYPES,
  rows,
  suffix: 'ON CONFLICT (job_id, idx) DO NOTHING',
  after: { sql: `UPDATE job_progress SET processed = processed + 100 WHERE job_id = 'held' AND ? = 1`, values: [1] },
});

const stored = async () => (await database.prisma.verification.findMany({ orderBy: { idx: 'asc' } })).map((v) => v.idx);
const afters = async () => (await database.prisma.jobProgress.findUniqueOrThrow({ where: { jobId: 'held' } })).processed;
const inUse = () => database.pool!.totalCount - database.pool!.idleCount;

it('stores while the row is held, on the pool and not through Prisma, then runs `after`', async () => {
  const transaction = vi.spyOn(database.prisma, '$transaction');
  const execute = vi.spyOn(database.prisma, '$executeRawUnsafe');
  try {
    expect(await insertWhileHeld(database, plan('held', [row(0), row(1)]))).toBe(true);
    expect(await insertWhileHeld(database, plan('held', [row(1), row(2)]))).toBe(true);
    expect(transaction).not.toHaveBeenCalled();
    expect(execute).not.toHaveBeenCalled();
  } finally {
    transaction.mockRestore();
    execute.mockRestore();
  }
  expect(await stored()).toEqual([0, 1, 2]);
  expect(await afters()).toBe(200);
  expect(inUse()).toBe(0);
});

it('stores nothing and runs nothing after when the row is not held', async () => {
  expect(await insertWhileHeld(database, plan('gone', [row(3)]))).toBe(false);
  expect(await stored()).toEqual([0, 1, 2]);
  expect(await afters()).toBe(200);
  expect(inUse()).toBe(0);
});

it('rolls a failing save back whole and gives its connection back', async () => {
  const bad = row(5);
  bad[VERIFICATION_COLUMNS.indexOf('score')] = 'not a number';
  await expect(insertWhileHeld(database, plan('held', [row(4), bad]))).rejects.toThrow();
  expect(await stored()).toEqual([0, 1, 2]);
  expect(await afters()).toBe(200);
  expect(inUse()).toBe(0);
  expect(await insertWhileHeld(database, plan('held', [row(4)]))).toBe(true);
  expect(await stored()).toEqual([0, 1, 2, 4]);
});
