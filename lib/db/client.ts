import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient as SqliteClient } from './generated/sqlite/client.ts';
import type { Database, Db, Dialect, WriteLock } from './types';
import { PrismaClient as PostgresClient } from './generated/postgres/client.ts';
import { env } from '../config/env';
import { applyMigrations } from './migrate';
import { BACKSTOP_PAGES, startCheckpointer } from './checkpointer';
import { SerializedSqliteAdapter } from './sqlite-adapter';
import { processSlot } from '../config/process-slots';

export type { Database, Db, Dialect, WriteLock } from './types';

/**
 * The direct connection writes synchronously, waiting on SQLite's lock without yielding; if a Prisma
 * interactive transaction of this same process held that lock across an await, neither could move.
 * So, within a process, Prisma's transactions and direct writes take turns through this queue.
 */
function writeLock(): WriteLock {
  let tail: Promise<unknown> = Promise.resolve();
  return {
    run(work) {
      const result = tail.then(work);
      tail = result.catch(() => undefined);
      return result;
    },
  };
}

export function dialectOf(url: string): Dialect {
  return /^postgres(ql)?:\/\//.test(url) ? 'postgres' : 'sqlite';
}

function sqliteFile(url: string): string {
  const path = url.replace(/^file:/, '');
  return path === ':memory:' ? path : resolve(path);
}

/** Opens the database named by `url` and brings its schema up to date. */
export async function openDatabase(url: string): Promise<Database> {
  const dialect = dialectOf(url);
  let prisma: Db;
  let pool: pg.Pool | undefined;
  if (dialect === 'postgres') {
    // a statement that runs longer than this is cancelled by the server: no request holds a
    // connection (and the locks it took) for everyone else (docs/limits.md)
    const timeout = env().EV_PG_STATEMENT_TIMEOUT_MS;
    // the adapter's connections, also used directly for what Prisma's parameters would cost too much (Database.pool)
    pool = new pg.Pool({ connectionString: url, max: 10, ...(timeout ? { statement_timeout: timeout } : {}) });
    prisma = new PostgresClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) }) as unknown as Db;
  } else {
    const file = sqliteFile(url);
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    prisma = new SqliteClient({ adapter: new SerializedSqliteAdapter({ url: file, timeout: 10_000 }, { timestampFormat: 'unixepoch-ms' }) });
    // WAL lets the web server read while a worker process writes; NORMAL is durable at checkpoints.
    await prisma.$queryRawUnsafe('PRAGMA journal_mode = WAL');
    await prisma.$executeRawUnsafe('PRAGMA synchronous = NORMAL');
    await prisma.$executeRawUnsafe('PRAGMA foreign_keys = ON');
  }
  await applyMigrations(prisma, dialect);
  if (pool) return { prisma, dialect, url, pool };
  const bulk = new BetterSqlite3(sqliteFile(url), { timeout: 10_000 });
  bulk.pragma('journal_mode = WAL');
  bulk.pragma('synchronous = NORMAL');
  // checkpoints run on a thread of their own; the writers' automatic one is the backstop (lib/db/checkpointer.ts)
  const file = sqliteFile(url);
  const checkpoints = file === ':memory:' ? null : startCheckpointer(file);
  if (checkpoints) {
    bulk.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
    await prisma.$queryRawUnsafe(`PRAGMA wal_autocheckpoint = ${BACKSTOP_PAGES}`);
  }
  const lock = writeLock();
  const transaction = prisma.$transaction.bind(prisma) as (...args: unknown[]) => Promise<unknown>;
  prisma.$transaction = ((...args: unknown[]) => lock.run(() => transaction(...args))) as Db['$transaction'];
  const disconnect = prisma.$disconnect.bind(prisma);
  prisma.$disconnect = async () => {
    if (bulk.open) bulk.close();
    await checkpoints?.stop();
    await disconnect();
  };
  return { prisma, dialect, url, bulk, writeLock: lock };
}

/**
 * Runs `stop` when the database is closed (`prisma.$disconnect`), before its connections go: what a
 * module started on it for the life of the process (pg-boss, the ledger owner's heartbeat).
 */
export function onClose(database: Database, stop: () => unknown): void {
  const disconnect = database.prisma.$disconnect.bind(database.prisma);
  database.prisma.$disconnect = async () => {
    await stop();
    await disconnect();
  };
}

const shared = processSlot<Promise<Database>>('db');

/** The process-wide database, opened on first use from DATABASE_URL. */
export function db(): Promise<Database> {
  shared.value ??= openDatabase(env().DATABASE_URL);
  return shared.value;
}

/** Points the process at another database (tests, benchmarks); closes the previous one. */
export async function useDatabase(url: string): Promise<Database> {
  const previous = shared.value;
  shared.value = openDatabase(url);
  if (previous) await (await previous.catch(() => null))?.prisma.$disconnect();
  return shared.value;
}
