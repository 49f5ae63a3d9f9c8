import { statSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freshDatabaseUrl } from '../../test/databases';
import { BACKSTOP_PAGES } from './checkpointer';
import { type Database, openDatabase } from './client';
import { sqliteInsert } from './sql';

// lib/db/checkpointer.ts: committed pages reach the database file through the checkpoint thread,
// though the writers' own automatic checkpoint waits for BACKSTOP_PAGES, far more than written here.
let database: Database;
let drop: () => Promise<void>;
let file: string;

beforeAll(async () => {
  const fresh = await freshDatabaseUrl('sqlite');
  drop = fresh.drop;
  file = fresh.url.replace(/^file:/, '');
  database = await openDatabase(fresh.url);
});
afterAll(async () => {
  await database.prisma.$disconnect();
  await drop();
});

it('copies committed pages into the database file off the writing thread', async () => {
  const bulk = database.bulk!;
  expect(bulk.pragma('wal_autocheckpoint', { simple: true })).toBe(BACKSTOP_PAGES);
  bulk.exec('CREATE TABLE filler (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
  const before = statSync(file).size;
  // about 1,250 pages of 4 KB, in 25 commits: under the backstop, so no writer checkpoints them
  const body = 'x'.repeat(4000);
  for (let commit = 0; commit < 25; commit++) {
    sqliteInsert(
      bulk,
      'filler',
      ['id', 'body'],
      Array.from({ length: 50 }, (_, i) => [commit * 50 + i, body]),
    );
  }
  const deadline = Date.now() + 10_000;
  while (statSync(file).size < before + 4_000_000 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  expect(statSync(file).size).toBeGreaterThan(before + 4_000_000);
  expect(bulk.prepare('SELECT COUNT(*) FROM filler').pluck().get()).toBe(1250);
});

it('stops with the database, holding no connection after it', async () => {
  const fresh = await freshDatabaseUrl('sqlite');
  const other = await openDatabase(fresh.url);
  await other.prisma.$disconnect();
  // a connection left open would keep the WAL: a clean close of the last one removes it
  expect(() => statSync(`${fresh.url.replace(/^file:/, '')}-wal`)).toThrow();
  await fresh.drop();
});
