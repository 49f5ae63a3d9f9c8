// Generates both Prisma clients offline. The Prisma CLI insists on a schema engine binary even for
// `generate`, which does not use it, so any existing file satisfies it (see DEVELOPERS.md).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { postgresSchema } from './schema-dialects.mjs';

const source = readFileSync('prisma/schema.prisma', 'utf8');
mkdirSync('prisma/postgres', { recursive: true });
writeFileSync('prisma/postgres/schema.prisma', postgresSchema(source));
const env = { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? process.execPath, PRISMA_HIDE_UPDATE_MESSAGE: '1' };
for (const schema of ['prisma/schema.prisma', 'prisma/postgres/schema.prisma']) {
  execFileSync(process.execPath, ['node_modules/prisma/build/index.js', 'generate', '--schema', schema], { env, stdio: ['ignore', 'ignore', 'inherit'] });
}
console.log('prisma clients generated (sqlite, postgres)');
