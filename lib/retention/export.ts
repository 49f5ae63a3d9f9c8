import { setImmediate as turn } from 'node:timers/promises';
import { Zip, ZipDeflate, strToU8 } from 'fflate';
import type { Database } from '../db/client';
import { selectArrays } from '../db/sql';
import { csvLine } from '../jobs/export/csv-cells';
import { webhooksAsAnswered } from '../webhooks/manage';
import { bool, STORED_COLUMNS } from '../results/rows';
import { effectiveDays } from './policy';

/**
 * GET /v1/export (docs/retention.md): everything the account has, as a zip of CSV and JSON files,
 * streamed: the big files (results, uploaded rows) are read a page at a time and deflated as they
 * come (fflate's streaming Zip, as the .xlsx download, lib/jobs/export/xlsx.ts), so memory stays flat.
 * Keys go without their hash, webhooks without their signing secret.
 */

const PAGE = 5000;

// the stored columns but the owner (the export is the account's own) and details (the verdict's JSON)
const RESULT_COLUMNS = STORED_COLUMNS.filter((column) => column !== 'user_id' && column !== 'details');
const LIST_COLUMNS = [
  'job_id',
  'status',
  'sandbox',
  'instant',
  'total_emails',
  'valid_emails',
  'invalid_format_emails',
  'duplicate_emails',
  'filename',
  'created_at',
  'completed_at',
  'error',
] as const;
const ROW_COLUMNS = ['job_id', 'idx', 'email', 'row', 'duplicate_of'] as const;

const iso = (value: Date | null | undefined) => (value ? value.toISOString() : null);

type File = { name: string; chunks: () => AsyncIterable<string> };

export function exportName(now = new Date()): string {
  return `export-${now.toISOString().slice(0, 10)}.zip`;
}

/** The zip as a stream; files are produced in order, each page pushed into the deflater as it is read. */
export function exportStream(database: Database, userId: string): ReadableStream<Uint8Array> {
  const files = exportFiles(database, userId);
  let zip: Zip;
  let fileIndex = 0;
  let current: { file: ZipDeflate; chunks: AsyncIterator<string> } | null = null;
  let emitted = 0;
  let ended = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      zip = new Zip((error, chunk, final) => {
        if (error) return controller.error(error);
        if (chunk.length) {
          emitted++;
          controller.enqueue(chunk);
        }
        if (final) {
          ended = true;
          controller.close();
        }
      });
    },
    // deflate holds small pushes back: a pull goes on until the zip has given out a chunk (the
    // stream asks again only after one) or has ended
    async pull() {
      const before = emitted;
      while (emitted === before && !ended) {
        await turn();
        if (!current) {
          const next = files[fileIndex++];
          if (!next) {
            zip.end();
            break;
          }
          const file = new ZipDeflate(next.name, { level: 6 });
          zip.add(file);
          current = { file, chunks: next.chunks()[Symbol.asyncIterator]() };
        }
        const step = await current.chunks.next();
        if (step.done) {
          current.file.push(new Uint8Array(0), true);
          current = null;
        } else current.file.push(strToU8(step.value));
      }
    },
  });
}

async function* once(text: () => Promise<string>): AsyncIterable<string> {
  yield await text();
}

function exportFiles(database: Database, userId: string): File[] {
  const { prisma } = database;
  const jobsOf = () => prisma.job.findMany({ where: { userId }, orderBy: { createdAt: 'asc' } });
  const listRow = (job: Awaited<ReturnType<typeof jobsOf>>[number]) => ({
    job_id: job.id,
    status: job.status,
    sandbox: job.sandbox,
    instant: job.instant,
    total_emails: job.totalEmails,
    valid_emails: job.validEmails,
    invalid_format_emails: job.invalidEmails,
    duplicate_emails: job.duplicateEmails,
    filename: job.uploadFilename,
    created_at: iso(job.createdAt),
    completed_at: iso(job.completedAt),
    error: job.error,
  });
  return [
    {
      name: 'account.json',
      chunks: () =>
        once(async () => {
          const user = await prisma.user.findUniqueOrThrow({ where: { id: userId } });
          return JSON.stringify(
            {
              id: user.id,
              email: user.email,
              plan: user.plan,
              credits: user.credits,
              created_at: iso(user.createdAt),
              retention_days: effectiveDays(user.retentionDays),
              exported_at: new Date().toISOString(),
            },
            null,
            2,
          );
        }),
    },
    {
      name: 'lists.json',
      chunks: () =>
        once(async () =>
          JSON.stringify(
            (await jobsOf()).map((job) => ({
              ...listRow(job),
              summary: job.summary ? JSON.parse(job.summary) : null,
              columns: job.uploadHeader ? JSON.parse(job.uploadHeader) : null,
            })),
            null,
            2,
          ),
        ),
    },
    {
      name: 'lists.csv',
      chunks: () =>
        once(
          async () =>
            csvLine(LIST_COLUMNS) +
            (await jobsOf())
              .map((job) => {
                const row = listRow(job);
                return csvLine(LIST_COLUMNS.map((c) => row[c]));
              })
              .join(''),
        ),
    },
    {
      name: 'results.csv',
      chunks: async function* () {
        yield csvLine(RESULT_COLUMNS);
        let after = -1;
        for (;;) {
          const rows = await selectArrays(
            database,
            `SELECT ${RESULT_COLUMNS.join(', ')} FROM verifications WHERE user_id = ? AND id > ? ORDER BY id LIMIT ${PAGE}`,
            [userId, after],
          );
          if (rows.length === 0) return;
          after = Number(rows[rows.length - 1]![0]);
          yield rows.map((row) => csvLine(row.map((cell, i) => resultCell(RESULT_COLUMNS[i]!, cell)))).join('');
          await turn();
        }
      },
    },
    {
      name: 'list-rows.csv',
      chunks: async function* () {
        yield csvLine(ROW_COLUMNS);
        for (const job of await prisma.job.findMany({ where: { userId }, select: { id: true }, orderBy: { createdAt: 'asc' } })) {
          let after = -1;
          for (;;) {
            const rows = await selectArrays(
              database,
              `SELECT job_id, idx, email, "row", duplicate_of FROM job_items WHERE job_id = ? AND idx > ? ORDER BY idx LIMIT ${PAGE}`,
              [job.id, after],
            );
            if (rows.length === 0) break;
            after = Number(rows[rows.length - 1]![1]);
            yield rows.map((row) => csvLine(row.map((cell) => (typeof cell === 'bigint' ? Number(cell) : cell)))).join('');
            await turn();
          }
        }
      },
    },
    {
      name: 'rules.csv',
      chunks: () =>
        once(async () => {
          const rules = await prisma.rule.findMany({ where: { userId }, orderBy: { createdAt: 'asc' } });
          return (
            csvLine(['id', 'action', 'match', 'value', 'created_at']) + rules.map((r) => csvLine([r.id, r.action, r.match, r.value, iso(r.createdAt)])).join('')
          );
        }),
    },
    {
      name: 'keys.json',
      chunks: () =>
        once(async () => {
          const keys = await prisma.apiKey.findMany({ where: { userId }, orderBy: { createdAt: 'asc' } });
          return JSON.stringify(
            keys.map((k) => ({
              id: k.id,
              name: k.name,
              prefix: k.prefix,
              type: k.type,
              scopes: k.scopes?.split(',') ?? null,
              allowed_ips: k.allowedIps?.split(',') ?? null,
              allowed_origins: k.allowedOrigins?.split(',') ?? null,
              created_at: iso(k.createdAt),
              last_used_at: iso(k.lastUsedAt),
              revoked_at: iso(k.revokedAt),
              expires_at: iso(k.expiresAt),
            })),
            null,
            2,
          );
        }),
    },
    { name: 'webhooks.json', chunks: () => once(async () => JSON.stringify(await webhooksAsAnswered(database, userId), null, 2)) },
  ];
}

function resultCell(column: string, value: unknown): unknown {
  if (typeof value === 'bigint') value = Number(value);
  if (column === 'created_at' || column === 'reused_at') return value === null ? null : new Date(Number(value)).toISOString();
  if (['sandbox', 'valid', 'deliverable', 'disposable', 'role', 'free', 'catch_all', 'cached'].includes(column))
    return bool(value as boolean | number | bigint);
  return value;
}
