import { afterAll, beforeAll, expect, it } from 'vitest';
import { freshDatabaseUrl } from '../../test/databases';
import { openDatabase, type Database } from './client';
import { bulkInsert, sqliteInsert } from './sql';

// SQLite: a Prisma transaction that holds the write lock across an await, and a bulk write on the
// direct connection arriving meanwhile, must both finish (the bulk write waits its turn in-process
// instead of blocking the event loop on SQLite's busy handler).
let database: Database;
let drop: () => Promise<void>;

beforeAll(async () => {
  const fresh = await freshDatabaseUrl('sqlite');
  drop = fresh.drop;
  database = await openDatabase(fresh.url);
  await database.prisma.user.create({ data: { id: 'u', email: 'u@x.com', passwordHash: 'x' } });
});
afterAll(async () => {
  await database.prisma.$disconnect();
  await drop();
});

it('lets a direct bulk write wait for an open Prisma transaction of the same process', async () => {
  const started = Date.now();
  const transaction = database.prisma.$transaction(async (tx) => {
    await tx.user.update({ where: { id: 'u' }, data: { credits: 5 } });
    await new Promise((resolve) => setTimeout(resolve, 200));
  });
  await new Promise((resolve) => setTimeout(resolve, 20));
  const insert = bulkInsert(database, 'usage_days', ['user_id', 'day', 'used'], [['u', '2026-11-22', 3]]);
  await Promise.all([transaction, insert]);
  expect(Date.now() - started).toBeLessThan(5000);
  expect(await database.prisma.usageDay.count()).toBe(1);
  expect((await database.prisma.user.findUnique({ where: { id: 'u' } }))!.credits).toBe(5);
});

// sqliteInsert binds rows from arrays or from a RowSource (the cells of row `index` pushed, no array
// per row: lib/jobs/intake/insert.ts): the same rows either way, across statements of 100 rows and
// a shorter last one, and the same count when ON CONFLICT skips rows.
it('stores the same rows from a RowSource as from row arrays', async () => {
  const bulk = database.bulk!;
  const day = (i: number) => `d${String(i).padStart(4, '0')}`;
  const arrays = Array.from({ length: 250 }, (_, i) => ['a', day(i), i]);
  const source = { from: 10, to: 260, cells: (values: unknown[], index: number) => values.push('b', day(index - 10), index - 10) };
  await database.prisma.user.createMany({ data: ['a', 'b'].map((id) => ({ id, email: `${id}@x.com`, passwordHash: 'x' })) });
  expect(sqliteInsert(bulk, 'usage_days', ['user_id', 'day', 'used'], arrays)).toBe(250);
  expect(sqliteInsert(bulk, 'usage_days', ['user_id', 'day', 'used'], source)).toBe(250);
  const read = async (userId: string) =>
    (await database.prisma.usageDay.findMany({ where: { userId }, orderBy: { day: 'asc' } })).map((row) => [row.day, row.used]);
  expect(await read('b')).toEqual(await read('a'));
  expect((await read('b')).length).toBe(250);
  expect((await read('b'))[249]).toEqual([day(249), 249]);
  const again = { from: 240, to: 260, cells: (values: unknown[], index: number) => values.push('b', day(index), 0) };
  expect(sqliteInsert(bulk, 'usage_days', ['user_id', 'day', 'used'], again, 'ON CONFLICT DO NOTHING')).toBe(10);
  expect((await read('b')).length).toBe(260);
  expect((await read('b'))[245]).toEqual([day(245), 245]);
});
