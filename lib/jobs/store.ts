import type { Database, Db } from '../db/client';
import { insertRows, q, selectArrays, selectRows, sqliteInsert } from '../db/sql';
import { bucketCondition, type Bucket, type DownloadFilter, type StoredVerification } from '../verifications/rows';

/** Data access for bulk jobs: one query (or one batched statement) per function. */

type Tx = Pick<Db, '$executeRawUnsafe' | '$queryRawUnsafe' | 'job'>;

export interface ChunkClaim {
  jobId: string;
  no: number;
  startIdx: number;
  endIdx: number;
  attempts: number;
  userId: string;
  sandbox: boolean;
}

const ITEM_COLUMNS = ['job_id', 'idx', 'email', 'row', 'duplicate_of'];
const CHUNK_COLUMNS = ['job_id', 'no', 'start_idx', 'end_idx'];

/** A job's addresses, their upload rows (JSON text each) and, per address, the index of its first occurrence or -1. */
export interface JobItems {
  emails: string[];
  rows?: string[];
  duplicateOf: Int32Array;
}

function itemRows(jobId: string, items: JobItems, from = 0, to = items.emails.length): unknown[][] {
  const { emails, rows, duplicateOf } = items;
  const out: unknown[][] = [];
  for (let idx = from; idx < to; idx++) {
    const first = duplicateOf[idx]!;
    out.push([jobId, idx, emails[idx], rows ? rows[idx] ?? '[]' : null, first >= 0 ? first : null]);
  }
  return out;
}

// Items are turned into rows a slice at a time, so a million-address job never holds a million
// row arrays at once.
const ITEM_SLICE = 10_000;

function chunkRows(jobId: string, total: number, chunkSize: number): unknown[][] {
  const values: unknown[][] = [];
  for (let no = 0, start = 0; start < total; no++, start += chunkSize) values.push([jobId, no, start, Math.min(total, start + chunkSize)]);
  return values;
}

export async function insertJobItems(tx: Tx, dialect: Database['dialect'], jobId: string, items: JobItems) {
  await insertRows(tx, dialect, 'job_items', ITEM_COLUMNS, itemRows(jobId, items));
}

export interface NewJob {
  id: string;
  userId: string;
  sandbox: boolean;
  status: 'queued';
  totalEmails: number;
  validEmails: number;
  invalidEmails: number;
  duplicateEmails: number;
  columns: string | null;
  reservedDay: string | null;
  reservedFree: number;
  reservedCredits: number;
}

/**
 * Writes a queued job with its items and chunks atomically: nothing half-written is ever visible.
 * SQLite goes through the direct connection (one transaction), PostgreSQL through Prisma.
 */
export async function insertQueuedJob(database: Database, job: NewJob, items: JobItems, chunkSize: number) {
  const { emails } = items;
  const chunks = chunkRows(job.id, emails.length, chunkSize);
  const { bulk, writeLock } = database;
  if (bulk && writeLock) {
    await writeLock.run(() => bulk.transaction(() => {
      sqliteInsert(bulk, 'jobs', ['id', 'user_id', 'sandbox', 'status', 'total_emails', 'valid_emails', 'invalid_format_emails', 'duplicate_emails', 'columns',
        'reserved_day', 'reserved_free', 'reserved_credits', 'created_at'], [
        [job.id, job.userId, job.sandbox, job.status, job.totalEmails, job.validEmails, job.invalidEmails, job.duplicateEmails, job.columns,
          job.reservedDay, job.reservedFree, job.reservedCredits, Date.now()],
      ]);
      for (let from = 0; from < emails.length; from += ITEM_SLICE) {
        sqliteInsert(bulk, 'job_items', ITEM_COLUMNS, itemRows(job.id, items, from, Math.min(emails.length, from + ITEM_SLICE)));
      }
      sqliteInsert(bulk, 'job_chunks', CHUNK_COLUMNS, chunks);
    })());
    return;
  }
  await database.prisma.$transaction(
    async (tx) => {
      await tx.job.create({ data: job });
      for (let from = 0; from < emails.length; from += ITEM_SLICE) {
        await insertRows(tx, database.dialect, 'job_items', ITEM_COLUMNS, itemRows(job.id, items, from, Math.min(emails.length, from + ITEM_SLICE)));
      }
      await insertRows(tx, database.dialect, 'job_chunks', CHUNK_COLUMNS, chunks);
    },
    { timeout: 600_000, maxWait: 60_000 },
  );
}

const CLAIMABLE = `((c.state = 'pending' AND c.not_before <= ?) OR (c.state = 'leased' AND c.lease_until < ?))`;

/**
 * Takes one chunk under a lease. The conditional UPDATE is the claim: of two workers racing for a
 * chunk only one sees its row change. PostgreSQL also skips rows another claim holds locked.
 * Fair claiming: the account whose unfinished jobs have had the fewest chunks taken (leased or
 * done) goes first, so one account's many or huge jobs cannot starve another's; within an account
 * the lowest chunk number across its jobs, so its running jobs take turns too.
 */
export async function claimChunk(
  { prisma, dialect }: Database, workerId: string, leaseMs: number, now = Date.now(),
  /** sandboxOnly: leave production jobs alone (EV_EGRESS_POLICY=pause while port 25 fails) */
  filter: { sandboxOnly?: boolean } = {},
): Promise<ChunkClaim | null> {
  const lease = now + leaseMs;
  for (let tries = 0; tries < 5; tries++) {
    const lock = dialect === 'postgres' ? 'FOR UPDATE OF c SKIP LOCKED' : '';
    const candidates = await prisma.$queryRawUnsafe<{ job_id: string; no: number }[]>(
      q(dialect, `WITH served AS (
          SELECT j.user_id, COUNT(*) AS n FROM job_chunks t JOIN jobs j ON j.id = t.job_id
          WHERE j.status IN ('queued', 'processing') AND t.state IN ('leased', 'done') GROUP BY j.user_id)
        SELECT c.job_id, c.no FROM job_chunks c JOIN jobs j ON j.id = c.job_id LEFT JOIN served s ON s.user_id = j.user_id
        WHERE ${CLAIMABLE} ${filter.sandboxOnly ? 'AND j.sandbox' : ''} ORDER BY COALESCE(s.n, 0), c.no, c.not_before, c.job_id LIMIT 1 ${lock}`),
      now, now,
    );
    const candidate = candidates[0];
    if (!candidate) return null;
    const claimed = await prisma.$queryRawUnsafe<{ job_id: string; no: number; start_idx: number; end_idx: number; attempts: number }[]>(
      q(dialect, `UPDATE job_chunks SET state = 'leased', worker_id = ?, lease_until = ?, attempts = attempts + 1
        WHERE job_id = ? AND no = ? AND ((state = 'pending' AND not_before <= ?) OR (state = 'leased' AND lease_until < ?))
        RETURNING job_id, no, start_idx, end_idx, attempts`),
      workerId, lease, candidate.job_id, candidate.no, now, now,
    );
    const chunk = claimed[0];
    if (!chunk) continue;
    const job = await prisma.job.findUnique({ where: { id: chunk.job_id }, select: { userId: true, sandbox: true } });
    if (!job) continue;
    return { jobId: chunk.job_id, no: Number(chunk.no), startIdx: Number(chunk.start_idx), endIdx: Number(chunk.end_idx), attempts: Number(chunk.attempts), ...job };
  }
  return null;
}

/** Extends a held lease; false when the chunk was taken over (the worker must stop on it). */
export async function renewLease({ prisma, dialect }: Database, chunk: ChunkClaim, workerId: string, until: number): Promise<boolean> {
  const count = await prisma.$executeRawUnsafe(
    q(dialect, `UPDATE job_chunks SET lease_until = ? WHERE job_id = ? AND no = ? AND worker_id = ? AND state = 'leased'`),
    until, chunk.jobId, chunk.no, workerId,
  );
  return count === 1;
}

/**
 * Items of a chunk that have no stored result yet: a retried chunk repeats nothing. A duplicate is
 * never verified: it takes its first occurrence's result (csvPage, processedCount).
 */
export async function unverifiedItems(database: Database, chunk: ChunkClaim): Promise<{ idx: number; email: string }[]> {
  const rows = await selectRows<{ idx: number; email: string }>(
    database,
    `SELECT i.idx, i.email FROM job_items i WHERE i.job_id = ? AND i.idx >= ? AND i.idx < ?
      AND i.duplicate_of IS NULL AND NOT EXISTS (SELECT 1 FROM verifications v WHERE v.job_id = i.job_id AND v.idx = i.idx) ORDER BY i.idx`,
    [chunk.jobId, chunk.startIdx, chunk.endIdx],
  );
  return rows.map((row) => ({ idx: Number(row.idx), email: row.email }));
}

export async function completeChunk({ prisma, dialect }: Database, chunk: ChunkClaim, workerId: string): Promise<void> {
  await prisma.$executeRawUnsafe(
    q(dialect, `UPDATE job_chunks SET state = 'done' WHERE job_id = ? AND no = ? AND worker_id = ?`),
    chunk.jobId, chunk.no, workerId,
  );
}

/**
 * Hands a chunk back to be taken again after `notBefore` (greylisting, back-off, shutdown).
 * `countAttempt: false` takes back the claim's attempt (a worker shutting down did not try).
 */
export async function releaseChunk(
  { prisma, dialect }: Database, chunk: ChunkClaim, workerId: string, notBefore: number, { countAttempt = true } = {},
): Promise<void> {
  await prisma.$executeRawUnsafe(
    q(dialect, `UPDATE job_chunks SET state = 'pending', worker_id = NULL, lease_until = 0, not_before = ?, attempts = attempts - ?
      WHERE job_id = ? AND no = ? AND worker_id = ? AND state = 'leased'`),
    notBefore, countAttempt ? 0 : 1, chunk.jobId, chunk.no, workerId,
  );
}

export async function openChunkCount({ prisma, dialect }: Database, jobId: string): Promise<number> {
  const rows = await prisma.$queryRawUnsafe<{ n: number | bigint }[]>(
    q(dialect, `SELECT COUNT(*) AS n FROM job_chunks WHERE job_id = ? AND state <> 'done'`),
    jobId,
  );
  return Number(rows[0]?.n ?? 0);
}

export async function cancelChunks(tx: Tx, dialect: Database['dialect'], jobId: string): Promise<void> {
  await tx.$executeRawUnsafe(q(dialect, `UPDATE job_chunks SET state = 'cancelled' WHERE job_id = ? AND state <> 'done'`), jobId);
}

/**
 * Rows answered so far. Counting a million result rows on every poll would stall the server, so
 * finished chunks count by their size and only the open chunks' ranges are counted row by row. A
 * duplicate row in an open chunk counts once its first occurrence has a result (the partial index
 * on duplicate_of keeps that count to the job's duplicates). While a job runs, a duplicate in a
 * finished chunk whose first occurrence sits in a later, still open chunk counts early; the
 * count is exact again when that chunk is done.
 */
export async function processedCount(database: Database, jobId: string): Promise<number> {
  const [done] = await selectRows<{ n: number | bigint | null }>(
    database, `SELECT SUM(end_idx - start_idx) AS n FROM job_chunks WHERE job_id = ? AND state = 'done'`, [jobId],
  );
  const [open] = await selectRows<{ n: number | bigint }>(
    database,
    `SELECT COUNT(*) AS n FROM job_chunks c JOIN verifications v ON v.job_id = c.job_id AND v.idx >= c.start_idx AND v.idx < c.end_idx
      WHERE c.job_id = ? AND c.state <> 'done'`,
    [jobId],
  );
  const [duplicates] = await selectRows<{ n: number | bigint }>(
    database,
    `SELECT COUNT(*) AS n FROM job_items i JOIN verifications v ON v.job_id = i.job_id AND v.idx = i.duplicate_of
      WHERE i.job_id = ? AND i.duplicate_of IS NOT NULL
      AND EXISTS (SELECT 1 FROM job_chunks c WHERE c.job_id = i.job_id AND c.state <> 'done' AND i.idx >= c.start_idx AND i.idx < c.end_idx)`,
    [jobId],
  );
  return Number(done?.n ?? 0) + Number(open?.n ?? 0) + Number(duplicates?.n ?? 0);
}

/** One page of a job's results in address order, optionally one verdict bucket. */
export async function resultsPage(
  database: Database,
  jobId: string,
  opts: { afterIdx: number; limit: number; offset?: number; bucket?: Bucket },
): Promise<(StoredVerification & { row: string | null })[]> {
  const filter = opts.bucket ? `AND v.${bucketCondition(opts.bucket)}` : '';
  return selectRows(
    database,
    `SELECT v.*, i.row FROM verifications v JOIN job_items i ON i.job_id = v.job_id AND i.idx = v.idx
      WHERE v.job_id = ? AND v.idx > ? ${filter} ORDER BY v.idx LIMIT ? OFFSET ?`,
    [jobId, opts.afterIdx, opts.limit, opts.offset ?? 0],
  );
}

/** A result row as the CSV download reads it; see `csvPage`. */
export type CsvRow = [
  idx: number, email: string, riskLevel: string, reason: string, status: string, score: number, provider: string,
  didYouMean: string | null, flags: number, subReason: string | null, mailboxProvider: string | null, row: string | null,
  duplicateOf?: number | null,
];

/** The bits of `CsvRow.flags`, in the order of the CSV's boolean columns. */
export const CSV_FLAGS = ['valid', 'deliverable', 'disposable', 'role', 'free', 'catch_all', 'cached'] as const;

/**
 * A page of results as the CSV writes them: [idx, email, risk_level, reason, status, score, provider,
 * did_you_mean, flags, sub_reason, mailbox_provider, upload row JSON or NULL, duplicate_of]. The seven booleans come as one integer
 * (bit i is CSV_FLAGS[i]): every value the driver hands back costs, and a million rows are streamed.
 * `withDuplicates` reads the job's rows and joins each to its first occurrence's result; without it
 * (a job with no duplicates, the common and fast case) only the results are read. Either way a row
 * with no result yet (a running job's partial download) is left out.
 */
export async function csvPage(
  database: Database, jobId: string, afterIdx: number, limit: number, withRows: boolean, bucket?: DownloadFilter, withDuplicates = false,
): Promise<CsvRow[]> {
  const filter = bucket ? `AND v.${bucketCondition(bucket)}` : '';
  // SQLite stores booleans as 0/1 already; parentheses because | and << share one precedence level
  const bit = (column: string, i: number) => `(${database.dialect === 'postgres' ? `v.${column}::int` : `v.${column}`} << ${i})`;
  const flags = CSV_FLAGS.map(bit).join(' | ');
  // sub_reason and mailbox_provider live in the details JSON (lib/verifications/rows.ts verificationRow)
  const detail = (key: string) => (database.dialect === 'postgres' ? `(v.details::json ->> '${key}')` : `json_extract(v.details, '$.${key}')`);
  const verdict = `v.risk_level, v.reason, v.status, v.score, v.provider, v.did_you_mean, ${flags} AS flags,
    ${detail('sub_reason')} AS sub_reason, ${detail('mailbox_provider')} AS mailbox_provider`;
  if (withDuplicates) {
    const query = `SELECT i.idx, i.email, ${verdict}, ${withRows ? 'i.row' : 'NULL AS row'}, i.duplicate_of
      FROM job_items i JOIN verifications v ON v.job_id = i.job_id AND v.idx = COALESCE(i.duplicate_of, i.idx)
      WHERE i.job_id = ? AND i.idx > ? ${filter} ORDER BY i.idx LIMIT ?`;
    return selectArrays(database, query, [jobId, afterIdx, limit]) as Promise<CsvRow[]>;
  }
  const from = withRows
    ? 'i.row FROM verifications v JOIN job_items i ON i.job_id = v.job_id AND i.idx = v.idx'
    : 'NULL AS row FROM verifications v';
  const query = `SELECT v.idx, v.email, ${verdict}, ${from}
    WHERE v.job_id = ? AND v.idx > ? ${filter} ORDER BY v.idx LIMIT ?`;
  return selectArrays(database, query, [jobId, afterIdx, limit]) as Promise<CsvRow[]>;
}
