import { createHash, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { byDialect } from './sql';
import type { Db, Dialect } from './types';

/**
 * Applies the SQL migrations under prisma/ at start-up through the driver adapter (the Prisma CLI cannot reach
 * its schema engine here) and records each in `_prisma_migrations` exactly as `prisma migrate deploy`
 * does (sha256 checksum of migration.sql), so a later deploy on a connected machine agrees.
 * Several processes may start at once: PostgreSQL serialises them with an advisory lock, SQLite
 * with an immediate transaction.
 */
export function migrationsDir(dialect: Dialect): string {
  return join(process.cwd(), byDialect(dialect, { postgres: 'prisma/postgres/migrations', sqlite: 'prisma/migrations' }));
}

export function readMigrations(dialect: Dialect): { name: string; sql: string; checksum: string }[] {
  const dir = migrationsDir(dialect);
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

const TABLE = {
  sqlite: `CREATE TABLE IF NOT EXISTS "_prisma_migrations" ("id" TEXT PRIMARY KEY NOT NULL, "checksum" TEXT NOT NULL, "finished_at" DATETIME, "migration_name" TEXT NOT NULL, "logs" TEXT, "rolled_back_at" DATETIME, "started_at" DATETIME NOT NULL DEFAULT current_timestamp, "applied_steps_count" INTEGER UNSIGNED NOT NULL DEFAULT 0)`,
  postgres: `CREATE TABLE IF NOT EXISTS "_prisma_migrations" ("id" VARCHAR(36) PRIMARY KEY NOT NULL, "checksum" VARCHAR(64) NOT NULL, "finished_at" TIMESTAMPTZ, "migration_name" VARCHAR(255) NOT NULL, "logs" TEXT, "rolled_back_at" TIMESTAMPTZ, "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(), "applied_steps_count" INTEGER NOT NULL DEFAULT 0)`,
};

function statements(sql: string): string[] {
  return sql
    .split(/;\s*(?:\n|$)/)
    .map((s) => s.replace(/^\s*--.*$/gm, '').trim())
    .filter(Boolean);
}

export async function applyMigrations(prisma: Db, dialect: Dialect): Promise<string[]> {
  const applied: string[] = [];
  const run = async (tx: Pick<Db, '$executeRawUnsafe' | '$queryRawUnsafe'>) => {
    await tx.$executeRawUnsafe(TABLE[dialect]);
    const done = await tx.$queryRawUnsafe<{ migration_name: string; checksum: string }[]>(
      'SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
    );
    const doneNames = new Map(done.map((row) => [row.migration_name, row.checksum]));
    for (const migration of readMigrations(dialect)) {
      const recorded = doneNames.get(migration.name);
      if (recorded !== undefined) {
        if (recorded !== migration.checksum) throw new Error(`Migration ${migration.name} was edited after it was applied`);
        continue;
      }
      const steps = statements(migration.sql);
      for (const step of steps) await tx.$executeRawUnsafe(step);
      const now = byDialect(dialect, { postgres: 'now()', sqlite: 'current_timestamp' });
      await tx.$executeRawUnsafe(
        `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, finished_at, applied_steps_count) VALUES ('${randomUUID()}', '${migration.checksum}', '${migration.name.replace(/'/g, "''")}', ${now}, ${now}, ${steps.length})`,
      );
      applied.push(migration.name);
    }
  };
  if (dialect === 'postgres') {
    await prisma.$transaction(
      async (tx) => {
        // a migration may rewrite a big table: the connection's statement time-out (lib/db/client.ts) is for requests
        await tx.$executeRawUnsafe('SET LOCAL statement_timeout = 0');
        await tx.$executeRawUnsafe('SELECT pg_advisory_xact_lock(7265436)');
        await run(tx);
      },
      { timeout: 120_000, maxWait: 120_000 },
    );
  } else {
    await prisma.$executeRawUnsafe(TABLE.sqlite);
    await prisma.$transaction(
      async (tx) => {
        // A write as the first statement takes SQLite's write lock before anything is read, so a
        // second process starting at the same moment waits here and then finds the work done.
        await tx.$executeRawUnsafe('DELETE FROM "_prisma_migrations" WHERE 0');
        await run(tx);
      },
      { timeout: 120_000, maxWait: 120_000 },
    );
  }
  return applied;
}
