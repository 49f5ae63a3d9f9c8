import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { postgresSchema } from '../../scripts/schema-dialects.mjs';
import { freshDatabaseUrl } from '../../test/databases';
import { openDatabase } from './client';
import { applyMigrations, readMigrations } from './migrate';

/** Tables and scalar columns the Prisma schema declares (relation fields are not columns). */
function schemaColumns(source: string): Map<string, Set<string>> {
  const models = [...source.matchAll(/model (\w+) \{([\s\S]*?)\n\}/g)];
  const modelNames = new Set(models.map((m) => m[1]));
  const tables = new Map<string, Set<string>>();
  for (const [, name, body] of models) {
    const table = /@@map\("(\w+)"\)/.exec(body!)?.[1] ?? name!;
    const columns = new Set<string>();
    for (const line of body!.split('\n')) {
      const field = /^\s+(\w+)\s+(\w+)(\[\])?\??/.exec(line);
      if (!field || modelNames.has(field[2]!)) continue;
      columns.add(/@map\("(\w+)"\)/.exec(line)?.[1] ?? field[1]!);
    }
    tables.set(table, columns);
  }
  return tables;
}

function migrationColumns(sql: string): Map<string, Set<string>> {
  const tables = new Map<string, Set<string>>();
  for (const [, table, body] of sql.matchAll(/CREATE TABLE "(\w+)" \(([\s\S]*?)\n\);/g)) {
    const columns = [...body!.matchAll(/^\s+"(\w+)" [A-Z]/gm)].map((m) => m[1]!);
    tables.set(table!, new Set(columns));
  }
  for (const [, table, column] of sql.matchAll(/ALTER TABLE "(\w+)" ADD COLUMN "(\w+)"/g))
    tables.set(table!, new Set([...(tables.get(table!) ?? []), column!]));
  return tables;
}

/** Columns a migration drops, per table. */
function droppedColumns(sql: string): Map<string, Set<string>> {
  const tables = new Map<string, Set<string>>();
  for (const [, table, column] of sql.matchAll(/ALTER TABLE "(\w+)" DROP COLUMN "(\w+)"/g))
    tables.set(table!, new Set([...(tables.get(table!) ?? []), column!]));
  return tables;
}

describe('the SQLite and PostgreSQL schemas stay in step', () => {
  const source = readFileSync('prisma/schema.prisma', 'utf8');

  it('derives the PostgreSQL schema from the SQLite one', () => {
    expect(readFileSync('prisma/postgres/schema.prisma', 'utf8')).toBe(postgresSchema(source));
  });

  it('has migrations for both dialects that create every model column', () => {
    const declared = schemaColumns(source);
    for (const dialect of ['sqlite', 'postgres'] as const) {
      const created = new Map<string, Set<string>>();
      for (const m of readMigrations(dialect)) {
        for (const [t, c] of migrationColumns(m.sql)) created.set(t, new Set([...(created.get(t) ?? []), ...c]));
        for (const [t, c] of droppedColumns(m.sql)) created.set(t, new Set([...created.get(t)!].filter((column) => !c.has(column))));
      }
      expect([...created.keys()].sort(), dialect).toEqual([...declared.keys()].sort());
      for (const [table, columns] of declared) expect([...created.get(table)!].sort(), `${dialect} ${table}`).toEqual([...columns].sort());
    }
    expect(readMigrations('sqlite').map((m) => m.name)).toEqual(readMigrations('postgres').map((m) => m.name));
  });

  it.each(['sqlite', 'postgres'] as const)('records migrations as prisma migrate deploy does, once (%s)', async (dialect) => {
    const fresh = await freshDatabaseUrl(dialect);
    const { prisma } = await openDatabase(fresh.url);
    try {
      expect(await applyMigrations(prisma, dialect)).toEqual([]);
      const rows = await prisma.$queryRawUnsafe<{ migration_name: string; checksum: string; finished_at: unknown }[]>(
        'SELECT migration_name, checksum, finished_at FROM "_prisma_migrations"',
      );
      const expected = readMigrations(dialect).map((m) => ({
        migration_name: m.name,
        checksum: createHash('sha256')
          .update(readFileSync(`${dialect === 'postgres' ? 'prisma/postgres/migrations' : 'prisma/migrations'}/${m.name}/migration.sql`))
          .digest('hex'),
      }));
      expect(rows.map(({ migration_name, checksum }) => ({ migration_name, checksum }))).toEqual(expected);
      expect(rows.every((r) => r.finished_at !== null)).toBe(true);
      // Every model is usable through the generated client.
      await prisma.user.create({ data: { id: 'u', email: 'u@x.com', passwordHash: 'x' } });
      await prisma.webhook.create({ data: { id: 'w', userId: 'u', url: 'http://x', events: '[]', secret: 's' } });
      expect(await prisma.webhook.count()).toBe(1);
    } finally {
      await prisma.$disconnect();
      await fresh.drop();
    }
  });

  it.each(['sqlite', 'postgres'] as const)(
    'starts several processes at once without applying a migration twice (%s)',
    async (dialect) => {
      const fresh = await freshDatabaseUrl(dialect);
      try {
        const start = () =>
          new Promise<number | null>((resolve) => {
            const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/open-database.ts'], {
              env: { ...process.env, DATABASE_URL: fresh.url },
              stdio: ['ignore', 'ignore', 'inherit'],
            });
            child.once('exit', resolve);
          });
        expect(await Promise.all([start(), start(), start()])).toEqual([0, 0, 0]);
        const { prisma } = await openDatabase(fresh.url);
        const rows = await prisma.$queryRawUnsafe<{ n: bigint | number }[]>('SELECT COUNT(*) AS n FROM "_prisma_migrations"');
        expect(Number(rows[0]!.n)).toBe(readMigrations(dialect).length);
        await prisma.$disconnect();
      } finally {
        await fresh.drop();
      }
    },
    60_000,
  );
});
