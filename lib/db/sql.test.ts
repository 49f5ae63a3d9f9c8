import { afterAll, beforeAll, expect, it } from 'vitest';
import { freshDatabaseUrl } from '../../test/databases';
import { openDatabase, type Database } from './client';
import { bulkInsert } from './sql';

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
