import { afterAll, beforeAll, expect, it } from 'vitest';
import { freshDatabaseUrl } from '../../test/databases';
import { VERIFICATION_COLUMNS, VERIFICATION_PG_TYPES } from '../results/rows';
import { type Database, openDatabase } from './client';
import { arraysInsert, insertArrays } from './sql';

// PostgreSQL: a chunk's results go as one array per column (lib/jobs/queue/ledger.ts saveChunkResults);
// every type of the table's columns, NULLs and NUL characters arrive as a multi-row VALUES list stores them.
let database: Database;
let drop: () => Promise<void>;

beforeAll(async () => {
  const fresh = await freshDatabaseUrl('postgres');
  drop = fresh.drop;
  database = await openDatabase(fresh.url);
});
afterAll(async () => {
  await database.prisma.$disconnect();
  await drop();
});

const row = (idx: number, email: string, didYouMean: string | null) => {
  const values: Record<(typeof VERIFICATION_COLUMNS)[number], unknown> = {
    user_id: 'u',
    job_id: 'job',
    idx,
    email,
    sandbox: true,
    source: 'bulk',
    status: 'valid',
    valid: true,
    deliverable: false,
    risk_level: 'low',
    reason: 'accepted_email',
    score: 97,
    confidence: 80,
    provider: 'other',
    disposable: false,
    role: true,
    free: false,
    catch_all: false,
    did_you_mean: didYouMean,
    cached: false,
    sub_reason: null,
    mailbox_provider: null,
    details: '{"a":1}',
    created_at: 1_795_000_000_000 + idx,
  };
  return VERIFICATION_COLUMNS.map((column) => values[column]);
};

it('stores rows sent as column arrays, skipping the ones already stored', async () => {
  const insert = (rows: unknown[][]) =>
    insertArrays(database.prisma, 'verifications', VERIFICATION_COLUMNS, VERIFICATION_PG_TYPES, rows, 'ON CONFLICT DO NOTHING');
  await insert([row(0, 'a@x.test', null), row(1, 'b\u0000@x.test', 'b@gmail.com')]);
  await insert([row(1, 'again@x.test', null), row(2, 'c@x.test', null)]);
  const stored = await database.prisma.verification.findMany({ orderBy: { idx: 'asc' } });
  expect(stored.map((v) => [v.idx, v.email, v.didYouMean, v.role, v.deliverable, v.score, v.createdAt])).toEqual([
    [0, 'a@x.test', null, true, false, 97, 1_795_000_000_000n],
    [1, 'b\uFFFD@x.test', 'b@gmail.com', true, false, 97, 1_795_000_000_001n],
    [2, 'c@x.test', null, true, false, 97, 1_795_000_000_002n],
  ]);
  // the progress trigger counts the rows the statement stored, not the one it skipped
  expect((await database.prisma.jobProgress.findUniqueOrThrow({ where: { jobId: 'job' } })).processed).toBe(3);
});

it('stores quotes, backslashes, braces, commas and the word NULL as they were', async () => {
  await database.prisma.$executeRawUnsafe('DELETE FROM verifications');
  const odd = ['"quoted"@x.test', 'back\\slash@x.test', '{brace},comma@x.test', 'NULL', ' spaced ', ''];
  const details = JSON.stringify({ evidence: 'he said "no" \\ {x}', list: [1, 2] });
  const rows = odd.map((email, i) => {
    const values = row(10 + i, email, i === 0 ? 'NULL' : null);
    values[VERIFICATION_COLUMNS.indexOf('details')] = details;
    return values;
  });
  await insertArrays(database.prisma, 'verifications', VERIFICATION_COLUMNS, VERIFICATION_PG_TYPES, rows, 'ON CONFLICT DO NOTHING');
  const stored = await database.prisma.verification.findMany({ orderBy: { idx: 'asc' } });
  expect(stored.map((v) => [v.email, v.didYouMean, v.details])).toEqual(odd.map((email, i) => [email, i === 0 ? 'NULL' : null, details]));
});

it('stores a column shared by every row (sent once) as it stores one that varies', async () => {
  await database.prisma.$executeRawUnsafe('DELETE FROM verifications');
  const odd = 'he said "no" \\ {x},NULL';
  const rows = [0, 1, 2].map((i) => {
    const values = row(20 + i, `s${i}@x.test`, null);
    values[VERIFICATION_COLUMNS.indexOf('details')] = odd;
    values[VERIFICATION_COLUMNS.indexOf('did_you_mean')] = i === 2 ? undefined : null;
    return values;
  });
  const { sql } = arraysInsert('verifications', VERIFICATION_COLUMNS, VERIFICATION_PG_TYPES, rows);
  // idx, email and created_at vary: every other column (details, did_you_mean's NULL and undefined alike) goes once
  expect(sql.match(/\[\]\)\[1\]/g)).toHaveLength(VERIFICATION_COLUMNS.length - 3);
  expect(sql).toContain('AS u(c2, c3, c23)');
  await insertArrays(database.prisma, 'verifications', VERIFICATION_COLUMNS, VERIFICATION_PG_TYPES, rows);
  // one row alone
  await insertArrays(database.prisma, 'verifications', VERIFICATION_COLUMNS, VERIFICATION_PG_TYPES, [row(30, 'one@x.test', 'NULL')]);
  const stored = await database.prisma.verification.findMany({ orderBy: { idx: 'asc' } });
  expect(stored.map((v) => [v.idx, v.email, v.jobId, v.details, v.reason, v.didYouMean, v.role, v.score])).toEqual([
    [20, 's0@x.test', 'job', odd, 'accepted_email', null, true, 97],
    [21, 's1@x.test', 'job', odd, 'accepted_email', null, true, 97],
    [22, 's2@x.test', 'job', odd, 'accepted_email', null, true, 97],
    [30, 'one@x.test', 'job', '{"a":1}', 'accepted_email', 'NULL', true, 97],
  ]);
});
