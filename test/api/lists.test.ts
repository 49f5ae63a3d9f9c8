import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as bulk from '@/app/v1/verify/bulk/route';
import * as status from '@/app/v1/verify/bulk/status/[jobId]/route';
import * as download from '@/app/v1/verify/bulk/download/[jobId]/route';
import * as account from '@/app/v1/account/route';
import { mailboxKey } from '@/lib/jobs/intake/duplicates';
import { claimChunk } from '@/lib/jobs/queue';
import { JobWorker } from '@/lib/jobs/worker/worker';
import { sandboxVerifier } from '@/lib/verifier/sandbox';
import { byDialect } from '@/lib/db/sql';
import { DIALECTS } from '../databases';
import { call, setup, until } from './harness';

/** What a marketer's list looks like: the same people typed twice, with other capitals. */
const TWELVE_ROWS_NINE_PEOPLE = [
  'valid.anna@shop.de',
  'valid.ben@shop.de',
  'Valid.Anna@Shop.DE',
  'valid.cem@mail.com',
  'valid.dora@mail.com',
  'VALID.BEN@SHOP.DE',
  'valid.eva@mail.com',
  'valid.fritz@mail.com',
  'valid.gül@mail.com',
  'valid.anna@SHOP.de',
  'valid.hans@mail.com',
  'valid.ida@mail.com',
];

describe.each(DIALECTS)('lists as marketers send them, on %s', (dialect) => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  let worker: JobWorker;

  beforeAll(async () => {
    ctx = await setup(dialect, { EV_CHUNK_SIZE: '5', EV_FREE_DAILY: '1000' });
    worker = new JobWorker(ctx.database, { concurrency: 4, leaseMs: 5000, pollMs: 20, verifierFor: () => sandboxVerifier });
    worker.start();
  });
  afterAll(async () => {
    await worker.stop();
    await ctx.teardown();
  });

  const statusOf = (jobId: string) => call(status.GET, { key: ctx.key, params: { jobId } });
  const listed = async (jobId: string) =>
    (await call(bulk.GET, { key: ctx.key, path: '/v1/verify/bulk?limit=100' })).json.data.find((j: any) => j.job_id === jobId);
  const completed = (jobId: string) =>
    until(
      () => statusOf(jobId),
      (r) => r.json.status === 'completed',
    );

  it("counts an instant job as processed everywhere, and keeps a TXT upload's file name", async () => {
    const emails = ['valid1@a.com', 'invalid1@a.com', 'risky@a.com', 'bad address', 'someone5@example.com', 'valid2@a.com'];
    const res = await call(bulk.POST, { key: ctx.key, body: { emails, filename: 'newsletter.txt' } });
    expect(res.json).toMatchObject({ instant: true, status: 'completed', total_emails: 6, duplicate_emails: 0 });
    const st = await statusOf(res.json.job_id);
    expect(st.json).toMatchObject({ status: 'completed', progress: 100, processed_emails: 6, total_emails: 6, filename: 'newsletter.txt' });
    expect(await listed(res.json.job_id)).toMatchObject({ processed_emails: 6, progress: 100, filename: 'newsletter.txt', instant: true });
    // a TXT list has no header to keep: the download starts with the verdict columns
    const csv = await call(download.GET, { key: ctx.key, params: { jobId: res.json.job_id } });
    expect(csv.text.split('\r\n')[0]).toMatch(/^email,valid,/);
  });

  it('counts a queued job the same in its status and in the list, while it runs and once done', async () => {
    await worker.stop();
    const emails = Array.from({ length: 23 }, (_, i) => `valid${i}@counted.com`);
    const res = await call(bulk.POST, { key: ctx.key, body: { emails, filename: 'counted.txt' } });
    const jobId = res.json.job_id;
    // one chunk of five done by hand: 5 of 23 answered
    const chunk = await claimChunk(ctx.database, worker.id, 5000);
    expect(chunk?.jobId).toBe(jobId);
    await worker.process(chunk!);
    expect((await statusOf(jobId)).json).toMatchObject({ status: 'processing', processed_emails: 5, progress: 21, filename: 'counted.txt' });
    expect(await listed(jobId)).toMatchObject({ processed_emails: 5, progress: 21 });
    worker.start();
    const done = await completed(jobId);
    expect(done.json).toMatchObject({ processed_emails: 23, progress: 100 });
    expect(await listed(jobId)).toMatchObject({ processed_emails: 23, progress: 100 });
  });

  it('verifies each mailbox once, keeps every row in order and marks the later ones', async () => {
    const rows = TWELVE_ROWS_NINE_PEOPLE.map((email, i) => [`Person ${i + 1}`, email]);
    const res = await call(bulk.POST, {
      key: ctx.key,
      body: { rows: rows.map((r) => [...r]), columns: ['Name', 'E-Mail'], email_column: 1, filename: 'kunden.csv' },
    });
    expect(res.json).toMatchObject({ status: 'queued', total_emails: 12, valid_emails: 12, duplicate_emails: 3 });
    const jobId = res.json.job_id;
    const done = await completed(jobId);
    expect(done.json).toMatchObject({ processed_emails: 12, progress: 100, duplicate_emails: 3 });
    const summary = done.json.data.summary;
    expect(summary).toMatchObject({ total: 12, duplicates: 3, failed: 0, deliverable: 9 });
    expect(summary.valid + summary.invalid + summary.unknown).toBe(9);
    expect(done.json.data.results_total).toBe(9); // one stored verification per mailbox
    expect(await listed(jobId)).toMatchObject({ processed_emails: 12, duplicate_emails: 3 });

    const csv = await call(download.GET, { key: ctx.key, params: { jobId } });
    const table = Papa.parse<string[]>(csv.text.trim(), { newline: '\r\n' }).data;
    const header = table[0]!;
    expect(header.slice(0, 3)).toEqual(['Name', 'E-Mail', 'email']);
    expect(header.at(-1)).toBe('duplicate_of');
    expect(table.slice(1).map((r) => r[1])).toEqual(TWELVE_ROWS_NINE_PEOPLE); // every row, in order
    const col = (name: string) => header.indexOf(name);
    // spreadsheet rows: the header is row 1, so the first address (index 0) is row 2
    expect(table.slice(1).map((r) => r[col('duplicate_of')])).toEqual(['', '', '2', '', '', '3', '', '', '', '2', '', '']);
    expect(table[3]![col('status')]).toBe(table[1]![col('status')]);
    expect(table[3]![col('email')]).toBe('Valid.Anna@Shop.DE');

    const deliverable = await call(download.GET, { key: ctx.key, path: `/v1/verify/bulk/download/${jobId}?filter=deliverable`, params: { jobId } });
    expect(deliverable.text.trim().split('\r\n')).toHaveLength(13); // duplicates stay in a filtered download too
  });

  it('answers an instant list with duplicates row by row, verifying each mailbox once', async () => {
    const emails = ['valid.x@dup.com', 'VALID.X@dup.com', 'j.doe@gmail.com', 'jdoe@googlemail.com', 'jdoe+news@gmail.com', '', ''];
    const res = await call(bulk.POST, { key: ctx.key, body: { emails } });
    expect(res.json).toMatchObject({ instant: true, total_emails: 7, valid_emails: 5, invalid_format_emails: 2, duplicate_emails: 2 });
    expect(res.json.results.map((r: any) => r.email)).toEqual(emails);
    expect(res.json.results[1]).toMatchObject({ ...res.json.results[0], email: 'VALID.X@dup.com' });
    expect(res.json.summary).toMatchObject({ total: 7, duplicates: 2, failed: 0 });
    const s = res.json.summary;
    expect(s.valid + s.invalid + s.unknown).toBe(5); // empty cells are answered, never merged
    const st = await statusOf(res.json.job_id);
    expect(st.json).toMatchObject({ processed_emails: 7, duplicate_emails: 2 });
    expect(st.json.data.summary).toEqual(res.json.summary);
  });

  it('reserves and charges a production job once per mailbox', async () => {
    const usage = async () => (await call(account.GET, { key: ctx.key, sandbox: false })).json;
    const before = await usage();
    await worker.stop();
    const res = await call(bulk.POST, { key: ctx.key, sandbox: false, body: { emails: TWELVE_ROWS_NINE_PEOPLE } });
    expect(res.json).toMatchObject({ status: 'queued', duplicate_emails: 3 });
    expect((await usage()).used_today - before.used_today).toBe(9); // reserved up front: 9, not 12
    worker.start();
    const done = await until(
      () => call(status.GET, { key: ctx.key, sandbox: false, params: { jobId: res.json.job_id } }),
      (r) => r.json.status === 'completed',
    );
    expect(done.json.data.summary).toMatchObject({ total: 12, duplicates: 3, deliverable: 9 });
    expect((await usage()).used_today - before.used_today).toBe(9); // all nine charged, nothing refunded twice
  });

  it('refunds a cancelled production job down to what its results used', async () => {
    const usage = async () => (await call(account.GET, { key: ctx.key, sandbox: false })).json.used_today as number;
    const before = await usage();
    await worker.stop();
    const emails = [...TWELVE_ROWS_NINE_PEOPLE, ...TWELVE_ROWS_NINE_PEOPLE.map((e) => e.toUpperCase())];
    const res = await call(bulk.POST, { key: ctx.key, sandbox: false, body: { emails } });
    expect(res.json.duplicate_emails).toBe(15);
    expect((await usage()) - before).toBe(9);
    // a running worker that claims no production chunk itself: it verifies the one handed to it
    const byHand = new JobWorker(ctx.database, { concurrency: 4, leaseMs: 5000, pollMs: 20, verifierFor: () => sandboxVerifier, productionPaused: () => true });
    byHand.start();
    const chunk = await claimChunk(ctx.database, byHand.id, 5000);
    await byHand.process(chunk!); // rows 0-4: four mailboxes verified, one duplicate
    await byHand.stop();
    const running = await call(status.GET, { key: ctx.key, sandbox: false, params: { jobId: res.json.job_id } });
    // answered: the five rows of the chunk and every later row of the same four mailboxes
    const verified = new Set(emails.slice(0, 5).map(mailboxKey));
    const answered = emails.filter((email) => verified.has(mailboxKey(email)));
    expect(answered).toHaveLength(14);
    expect(running.json).toMatchObject({ processed_emails: 14, progress: 58 });
    const partial = await call(download.GET, {
      key: ctx.key,
      sandbox: false,
      path: `/v1/verify/bulk/download/${res.json.job_id}?partial=true`,
      params: { jobId: res.json.job_id },
    });
    expect(partial.status).toBe(200);
    expect(partial.headers.get('x-ev-partial')).toBe('true');
    expect(partial.headers.get('content-disposition')).toContain('-partial.csv');
    expect(
      partial.text
        .trim()
        .split('\r\n')
        .slice(1)
        .map((line) => line.split(',')[0]),
    ).toEqual(answered);
    const refused = await call(download.GET, { key: ctx.key, sandbox: false, params: { jobId: res.json.job_id } });
    expect(refused.status).toBe(409);
    const { DELETE } = await import('@/app/v1/verify/bulk/[jobId]/route');
    await call(DELETE, { method: 'DELETE', key: ctx.key, sandbox: false, params: { jobId: res.json.job_id } });
    expect((await usage()) - before).toBe(4);
    worker.start();
  });
});

describe.each(DIALECTS)('downloads as marketers keep their files, on %s', (dialect) => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  let worker: JobWorker;

  beforeAll(async () => {
    ctx = await setup(dialect, { EV_CHUNK_SIZE: '5' });
    worker = new JobWorker(ctx.database, { concurrency: 4, leaseMs: 5000, pollMs: 20, verifierFor: () => sandboxVerifier });
    worker.start();
  });
  afterAll(async () => {
    await worker.stop();
    await ctx.teardown();
  });

  // what Excel's "CSV UTF-8" writes in Germany: semicolons, a BOM, CRLF, umlauts and a comma in a cell
  const columns = ['Vorname', 'Straße', 'E-Mail'];
  const people = [
    ['Jürgen', 'Königstraße 1, Hinterhaus', 'valid.juergen@beispiel.de'],
    ['Anna', 'Hauptstr. 2', 'catchall.anna@beispiel.de'],
    ['Anna', 'Hauptstr. 2', 'CATCHALL.ANNA@beispiel.de'],
    ['Ömer', '=Formel', 'invalid.oemer@beispiel.de'],
    ['Zoë', 'Gasse; 3', 'valid.zoe@beispiel.de'],
    ['Bob', 'x', 'risky.bob@beispiel.de'],
  ];
  const submit = async (extra: Record<string, unknown>) => {
    const res = await call(bulk.POST, { key: ctx.key, body: { rows: people, columns, email_column: 2, filename: 'kunden.csv', ...extra } });
    expect(res.status).toBe(200);
    await until(
      () => call(status.GET, { key: ctx.key, params: { jobId: res.json.job_id } }),
      (r) => r.json.status === 'completed',
    );
    return res.json.job_id as string;
  };
  const get = (jobId: string, query = '') => call(download.GET, { key: ctx.key, path: `/v1/verify/bulk/download/${jobId}${query}`, params: { jobId } });
  const getBytes = async (jobId: string, query = '') => {
    const response = await download.GET(
      new Request(`http://localhost/v1/verify/bulk/download/${jobId}${query}`, {
        headers: { authorization: `Bearer ${ctx.key}`, 'x-ev-sandbox': 'true' },
      }),
      { params: Promise.resolve({ jobId }) },
    );
    return { response, bytes: Buffer.from(await response.arrayBuffer()) };
  };

  it("writes the download with the upload's delimiter, BOM and line ends", async () => {
    const jobId = await submit({ delimiter: ';', bom: true, newline: '\r\n' });
    const { bytes } = await getBytes(jobId);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = bytes.toString('utf8').slice(1);
    const lines = text.split('\r\n');
    expect(lines[0]).toBe(
      'Vorname;Straße;E-Mail;email;valid;deliverable;risk_level;reason;status;score;provider;disposable;role;free;catch_all;did_you_mean;cached;sub_reason;mailbox_provider;duplicate_of',
    );
    expect(lines[1]).toMatch(
      /^Jürgen;Königstraße 1, Hinterhaus;valid\.juergen@beispiel\.de;valid\.juergen@beispiel\.de;true;true;low;accepted_email;deliverable;95;/,
    );
    const parsed = Papa.parse<string[]>(text.trim(), { delimiter: ';', newline: '\r\n' }).data;
    expect(parsed.slice(1).map((r) => r.slice(0, 3))).toEqual(people.map((p, i) => (i === 3 ? [p[0], "'=Formel", p[2]] : p)));
    expect(parsed[5]![1]).toBe('Gasse; 3'); // a cell holding the delimiter is quoted
    expect(parsed.slice(1).map((r) => r.at(-1))).toEqual(['', '', '3', '', '', '']);

    const plain = await get(jobId, '?format=csv');
    expect(plain.text.startsWith('Vorname,Straße,E-Mail,email,')).toBe(true);
    expect(plain.headers.get('content-disposition')).toBe(`attachment; filename="${jobId}.csv"`);

    const lf = await getBytes(await submit({ delimiter: '\t', newline: '\n' }));
    expect(lf.bytes.toString('utf8').split('\n')[0]).toBe(
      ['Vorname', 'Straße', 'E-Mail', 'email'].join('\t') +
        '\t' +
        'valid\tdeliverable\trisk_level\treason\tstatus\tscore\tprovider\tdisposable\trole\tfree\tcatch_all\tdid_you_mean\tcached\tsub_reason\tmailbox_provider\tduplicate_of',
    );
    expect(lf.bytes.includes('\r')).toBe(false);
  });

  it('writes an Excel workbook that reads back row for row, the sheet named as uploaded', async () => {
    const jobId = await submit({ sheet: 'Kunden 2026' });
    const { response, bytes } = await getBytes(jobId); // an .xlsx upload downloads as .xlsx
    expect(response.headers.get('content-type')).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="${jobId}.xlsx"`);
    const { default: readExcelFile } = await import('read-excel-file/node');
    const sheets = await readExcelFile(bytes, { trim: false });
    expect(sheets.map((s) => s.sheet)).toEqual(['Kunden 2026']);
    const data = sheets[0]!.data;
    expect(data[0]).toEqual([
      ...columns,
      'email',
      'valid',
      'deliverable',
      'risk_level',
      'reason',
      'status',
      'score',
      'provider',
      'disposable',
      'role',
      'free',
      'catch_all',
      'did_you_mean',
      'cached',
      'sub_reason',
      'mailbox_provider',
      'duplicate_of',
    ]);
    expect(data.slice(1).map((r) => r.slice(0, 3))).toEqual(people); // no formula guard needed: cells are text
    expect(data[1]![9]).toBe(95);
    expect(data.slice(1).map((r) => r[19] ?? null)).toEqual([null, null, 3, null, null, null]);
    const csv = await get(jobId, '?format=csv');
    expect(csv.text.split('\r\n')).toHaveLength(8);
  });

  it('offers the safe-to-send rows, with the catch-all ones when asked', async () => {
    const jobId = await submit({});
    const emailsOf = (text: string) =>
      Papa.parse<string[]>(text.trim(), { newline: '\r\n' })
        .data.slice(1)
        .map((r) => r[2]);
    expect(emailsOf((await get(jobId, '?filter=safe')).text)).toEqual(['valid.juergen@beispiel.de', 'valid.zoe@beispiel.de']);
    expect(emailsOf((await get(jobId, '?filter=safe&catch_all=true')).text)).toEqual([
      'valid.juergen@beispiel.de',
      'catchall.anna@beispiel.de',
      'CATCHALL.ANNA@beispiel.de',
      'valid.zoe@beispiel.de',
    ]);
    expect((await get(jobId, '?format=pdf')).json).toMatchObject({ error: 'invalid_request', param: 'format' });
    expect((await call(bulk.POST, { key: ctx.key, body: { emails: ['a@b.com'], delimiter: 'x' } })).json).toMatchObject({
      error: 'invalid_request',
      param: 'delimiter',
    });
    expect((await call(bulk.POST, { key: ctx.key, body: { emails: ['a@b.com'], bom: 'yes' } })).json).toMatchObject({ error: 'invalid_request', param: 'bom' });
  });
});

describe.each(DIALECTS)('a job that waits for greylisting servers says so, on %s', (dialect) => {
  let ctx: Awaited<ReturnType<typeof setup>>;

  beforeAll(async () => {
    ctx = await setup(dialect, { EV_CHUNK_SIZE: '4' });
  });
  afterAll(() => ctx.teardown());

  it('reports the waiting addresses and when they are asked again, offers the rows so far, and shows providers once done', async () => {
    // grey.test answers "try again in 5 minutes" (what Postfix's postgrey says to a first try)
    const greylisting = {
      async verify(email: string) {
        const outcome = await sandboxVerifier.verify(email);
        return email.endsWith('@grey.test') ? { ...outcome, retryAfterMs: 300_000 } : outcome;
      },
    };
    const emails = [
      'valid1@gmail.com',
      'valid2@grey.test',
      'valid3@hotmail.de',
      'valid4@grey.test',
      'valid5@yahoo.co.jp',
      'valid6@firma.de',
      'valid7@outlook.com',
      'valid8@googlemail.com',
      'VALID1@gmail.com',
      'valid9@live.com',
      'valid10@aol.com',
      'valid11@example.com',
      'not an address',
    ];
    const res = await call(bulk.POST, { key: ctx.key, body: { emails } });
    const jobId = res.json.job_id;
    const worker = new JobWorker(ctx.database, { concurrency: 4, leaseMs: 5000, pollMs: 20, verifierFor: () => greylisting });
    worker.start();
    const before = Date.now();
    const waiting = await until(
      () => call(status.GET, { key: ctx.key, params: { jobId } }),
      (r) => r.json.processed_emails === 11,
    );
    await worker.stop();
    expect(waiting.json).toMatchObject({ status: 'processing', processed_emails: 11, progress: 84 });
    expect(waiting.json.waiting.addresses).toBe(2);
    const next = Date.parse(waiting.json.waiting.next_try_at);
    expect(next).toBeGreaterThanOrEqual(before + 300_000);
    expect(next).toBeLessThan(Date.now() + 300_000 + 1000);

    const partial = await call(download.GET, { key: ctx.key, path: `/v1/verify/bulk/download/${jobId}?partial=true`, params: { jobId } });
    expect(partial.headers.get('x-ev-partial')).toBe('true');
    expect(
      partial.text
        .trim()
        .split('\r\n')
        .slice(1)
        .map((l) => l.split(',')[0]),
    ).toEqual(emails.filter((e) => !e.endsWith('@grey.test')));

    // the servers accept the next try: the job completes and nothing waits any more
    await ctx.database.prisma.$executeRawUnsafe(`UPDATE job_chunks SET not_before = 0`);
    // on PostgreSQL the chunks' pg-boss jobs are due at the retry time too (lib/jobs/queue/pgboss.ts)
    await byDialect(dialect, {
      postgres: () => ctx.database.prisma.$executeRawUnsafe(`UPDATE pgboss.job SET start_after = now() WHERE state = 'created'`),
      sqlite: async () => 0,
    })();
    const done = new JobWorker(ctx.database, { concurrency: 4, leaseMs: 5000, pollMs: 20, verifierFor: () => sandboxVerifier });
    done.start();
    const completed = await until(
      () => call(status.GET, { key: ctx.key, params: { jobId } }),
      (r) => r.json.status === 'completed',
    );
    await done.stop();
    expect(completed.json).not.toHaveProperty('waiting');
    // 11 mailboxes (VALID1@gmail.com is valid1's duplicate; what is not an address has no provider)
    expect(completed.json.data.providers).toEqual({ google: 2, microsoft: 3, yahoo: 2, other: 4 });
  });
});
