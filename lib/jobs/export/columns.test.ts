import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, freshDatabaseUrl } from '../../../test/databases';
import { buildOpenApi } from '../../api/openapi';
import { type Database, openDatabase } from '../../db/client';
import { DUPLICATE_COLUMN, RESULT_COLUMN_SPECS, RESULT_COLUMNS } from './columns';
import { uploadInfo } from './formats';

describe('the result columns are declared once', () => {
  it('docs/lists.md lists the declared columns, in order', () => {
    const doc = readFileSync('docs/lists.md', 'utf8');
    const listed = /Columns: the upload's original columns \(if any\), then\s+`([^`]+)`,\s+then, when the list has duplicates, `(\w+)`/.exec(doc);
    expect(listed, 'the column list in docs/lists.md').not.toBeNull();
    expect(listed![1]!.split(',')).toEqual(RESULT_COLUMNS);
    expect(listed![2]).toBe(DUPLICATE_COLUMN.name);
  });

  it('the OpenAPI description of the download names and describes every column', () => {
    const paths = buildOpenApi().paths as Record<string, { get: { description: string } }>;
    const description = paths['/v1/verify/bulk/download/{jobId}']!.get.description;
    expect(description).toContain(`\`${RESULT_COLUMNS.join(',')}\`, then \`duplicate_of\``);
    for (const column of RESULT_COLUMN_SPECS) expect(description).toContain(`\`${column.name}\`: ${column.description}`);
  });
});

describe.each(DIALECTS)('the migrations to named columns on %s', (dialect) => {
  let database: Database;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const fresh = await freshDatabaseUrl(dialect);
    drop = fresh.drop;
    database = await openDatabase(fresh.url);
  });
  afterAll(async () => {
    await database.prisma.$disconnect();
    await drop();
  });

  it('backfills sub_reason and mailbox_provider from the details JSON of rows stored before it', async () => {
    const storedBefore = (id: number, details: object) =>
      database.prisma.verification.create({
        data: {
          id,
          userId: 'u',
          email: `a${id}@b.com`,
          sandbox: false,
          source: 'single',
          status: 'unknown',
          valid: true,
          deliverable: false,
          riskLevel: 'unknown',
          reason: 'smtp_error',
          score: 50,
          confidence: 50,
          provider: 'b.com',
          disposable: false,
          role: false,
          free: false,
          catchAll: false,
          cached: false,
          details: JSON.stringify(details),
          createdAt: 0n,
        },
      });
    await storedBefore(1, { smtp_valid: null, sub_reason: 'greylisted', mailbox_provider: 'google' });
    await storedBefore(2, { smtp_valid: null, sub_reason: null });
    await storedBefore(3, {});
    const folder = dialect === 'postgres' ? 'prisma/postgres/migrations' : 'prisma/migrations';
    const backfill = readFileSync(`${folder}/20261125160000_verification_columns/migration.sql`, 'utf8')
      .split('\n')
      .find((line) => line.startsWith('UPDATE'))!;
    await database.prisma.$executeRawUnsafe(backfill.replace(/;$/, ''));
    const rows = await database.prisma.verification.findMany({ orderBy: { id: 'asc' }, select: { subReason: true, mailboxProvider: true } });
    expect(rows).toEqual([
      { subReason: 'greylisted', mailboxProvider: 'google' },
      { subReason: null, mailboxProvider: null },
      { subReason: null, mailboxProvider: null },
    ]);
  });

  it('20261125161000_job_upload_columns moves the upload JSON of jobs.columns into upload_*', async () => {
    await database.prisma.user.create({ data: { id: 'u', email: 'u@x.com', passwordHash: 'x' } });
    // the column the migration drops, put back with the rows of before
    await database.prisma.$executeRawUnsafe('ALTER TABLE "jobs" ADD COLUMN "columns" TEXT');
    const job = (id: string, columns: object | null) =>
      database.prisma.$executeRawUnsafe(
        `INSERT INTO "jobs" ("id", "user_id", "sandbox", "status", "total_emails", "valid_emails", "invalid_format_emails", "columns", "created_at") VALUES ('${id}', 'u', ${dialect === 'postgres' ? 'true' : '1'}, 'completed', 1, 1, 0, ${columns ? `'${JSON.stringify(columns)}'` : 'NULL'}, ${dialect === 'postgres' ? 'now()' : '0'})`,
      );
    await job('j1', { columns: ['name', 'e"mail'], filename: 'list.csv', format: { delimiter: ';', bom: true, newline: '\n', sheet: null } });
    await job('j2', { columns: [], filename: 'list.txt', format: null });
    await job('j3', null);
    const folder = dialect === 'postgres' ? 'prisma/postgres/migrations' : 'prisma/migrations';
    const sql = readFileSync(`${folder}/20261125161000_job_upload_columns/migration.sql`, 'utf8')
      .split('\n')
      .filter((line) => /^(UPDATE|ALTER TABLE "jobs" DROP)/.test(line));
    for (const statement of sql) await database.prisma.$executeRawUnsafe(statement.replace(/;$/, ''));
    const jobs = await database.prisma.job.findMany({ orderBy: { id: 'asc' } });
    expect(jobs.map(uploadInfo)).toEqual([
      { columns: ['name', 'e"mail'], filename: 'list.csv', format: { delimiter: ';', bom: true, newline: '\n', sheet: null } },
      { columns: [], filename: 'list.txt', format: null },
      { columns: [], filename: null, format: null },
    ]);
  });
});
