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

// A column with one value in every row of a statement is bound once for it (lib/db/sqlite-insert.ts):
// whichever columns are shared, and however that changes from one statement to the next (past the
// statements kept per pattern too), every row is stored with its own values and types.
it('stores every row as given when some columns share a value within a statement', async () => {
  const bulk = database.bulk!;
  bulk.exec('CREATE TABLE shared_cells (id INTEGER PRIMARY KEY, a TEXT, b INTEGER, c TEXT, d REAL, e TEXT, f INTEGER)');
  const columns = ['id', 'a', 'b', 'c', 'd', 'e', 'f'];
  // each statement of 100 rows shares another set of columns (the bits of its number): 40 patterns, past the 32 kept
  const rows = Array.from({ length: 4000 }, (_, id) => {
    const pattern = Math.floor(id / 100);
    const vary = (bit: number) => (pattern >> bit) & 1;
    return [
      id,
      vary(0) ? `a${id}` : 'same',
      vary(1) ? id % 7 : null,
      vary(2) ? `c${id}` : null,
      vary(3) ? id / 4 : 1.5,
      vary(4) ? `e${id}` : null,
      vary(5) ? id : 0,
    ];
  });
  expect(sqliteInsert(bulk, 'shared_cells', columns, rows)).toBe(4000);
  const stored = bulk.prepare('SELECT id, a, b, c, d, e, f, typeof(b) || typeof(d) AS types FROM shared_cells ORDER BY id').raw().all() as unknown[][];
  expect(stored.map((row) => row.slice(0, 7))).toEqual(rows);
  for (const [i, row] of stored.entries()) expect(row[7], `row ${i}`).toBe(`${rows[i]![2] === null ? 'null' : 'integer'}real`);
  // shared columns and ON CONFLICT: the rows already there are skipped, the new ones stored
  const again = rows
    .slice(3950)
    .map((row) => [row[0], 'same', 1, 'x', 2.5, null, 0])
    .concat([[5000, 'same', 1, 'x', 2.5, null, 0]]);
  expect(sqliteInsert(bulk, 'shared_cells', columns, again, 'ON CONFLICT DO NOTHING')).toBe(1);
  expect(bulk.prepare('SELECT a, b, c, d, e, f FROM shared_cells WHERE id = 3999').raw().get()).toEqual(rows[3999]!.slice(1));
});
