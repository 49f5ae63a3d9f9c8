/** Derives the PostgreSQL schema from the SQLite source schema: only provider and output differ. */
export function postgresSchema(source) {
  return (
    '// GENERATED from prisma/schema.prisma by scripts/generate.mjs: do not edit.\n' +
    source
      .replace('provider = "sqlite"', 'provider = "postgresql"')
      .replace('output   = "../lib/db/generated/sqlite"', 'output   = "../../lib/db/generated/postgres"')
  );
}
