import type BetterSqlite3 from 'better-sqlite3';
import type pg from 'pg';
import type { PrismaClient as SqliteClient } from './generated/sqlite/client.ts';

// The database handle's types, apart from lib/db/client.ts (which opens it), so the modules it uses
// (migrate.ts, sql.ts) can name them without importing it back.

/** Both generated clients have the same models; the SQLite one's type stands for both. */
export type Db = SqliteClient;
export type Dialect = 'sqlite' | 'postgres';

export interface Database {
  prisma: Db;
  dialect: Dialect;
  /** the URL it was opened from (a store that needs its own connections opens them here) */
  url: string;
  /**
   * SQLite only: a second, direct connection to the same file for bulk writes. Through the Prisma
   * adapter a 22-column insert manages about 33k rows/s; prepared statements here about 150k.
   */
  bulk?: BetterSqlite3.Database;
  /**
   * PostgreSQL only: the connections Prisma's adapter uses, for statements whose parameters Prisma
   * would walk twice (it JSON-encodes a raw query's parameters and decodes them again): a chunk's
   * saves (lib/db/insert-while-held.ts), about a third of a sandbox job's CPU through Prisma, and a
   * queued job's write (lib/db/staged-write.ts, its items by COPY).
   */
  pool?: pg.Pool;
  /** SQLite only: see `writeLock()` in lib/db/client.ts. */
  writeLock?: WriteLock;
}

export interface WriteLock {
  run<T>(work: () => T | Promise<T>): Promise<T>;
}
