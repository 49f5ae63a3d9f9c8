/**
 * CSV download speed of a completed 1,000,000-row sandbox job (issue 2), without `npm run bench`:
 *   in-process  the stream of lib/jobs/export/csv.ts read to the end
 *   --http      the same stream served by a plain node:http server through Next's own
 *               pipeToNodeResponse (as a route's Response body is), read by bench/bulk.ts downloadCsv
 *   --next DIR  instead of the above, `next start` from DIR (a checkout with a `next build`; `.` for
 *               this one) against the same database, GET /v1/verify/bulk/download timed by
 *               downloadCsv exactly as bench/run.ts [3] does, with the server's RSS; repeat the
 *               option to let several builds take turns
 *   --impl F    also times module F exporting resultsCsv (e.g. a copy of an older lib/jobs/export/csv.ts),
 *               in turn with the current one so that both see the same load on the machine
 *   --verify    first checks that the current and --impl write the same bytes (SHA-256 per job)
 *
 *   npx tsx bench/csv.ts [--rows 1000000] [--upload 200000] [--repeat 3] [--dir /tmp/ev-csv-bench] …
 *
 * The SQLite database is built once per --dir, row count and --upload (about a minute) and reused.
 * --upload N adds a job of N rows with three uploaded CSV columns (the JOIN to job_items path).
 */
import { createHash } from 'node:crypto';
import { spawn } from 'node:child_process';
import http from 'node:http';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureAccount } from '../lib/accounts/users';
import { createApiKey } from '../lib/accounts/keys';
import { useDatabase, type Database } from '../lib/db/client';
import { resultsCsv as currentCsv } from '../lib/jobs/export/csv';
import { storedUpload } from '../lib/jobs/export/formats';
import { insertQueuedJob } from '../lib/jobs/intake/insert';
import { saveResults, verificationRow } from '../lib/results/rows';
import { sandboxVerdict } from '../lib/verifier/sandbox';
import { address, downloadCsv } from './bulk';
import { freePort, sampleRss } from './server';

const { values: opts } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    upload: { type: 'string', default: '0' },
    repeat: { type: 'string', default: '3' },
    http: { type: 'boolean', default: false },
    dir: { type: 'string', default: '/tmp/ev-csv-bench' },
    impl: { type: 'string' },
    verify: { type: 'boolean', default: false },
    next: { type: 'string', multiple: true },
  },
});
const ROWS = Number(opts.rows);
const UPLOAD = Number(opts.upload);
const REPEAT = Number(opts.repeat);

interface Fixture {
  jobId: string;
  uploadJobId: string | null;
  key: string;
}

async function build(database: Database, userId: string, jobId: string, count: number, upload: boolean) {
  const emails = Array.from({ length: count }, (_, i) => address(i));
  const rows = upload
    ? emails.map((email, i) => [`Name ${i}`, email, i % 7 === 0 ? `=cmd${i}` : `Company, "${i % 13}"`]).map((row) => JSON.stringify(row))
    : undefined;
  const stored = storedUpload(upload ? { columns: ['name', 'email', 'company'], filename: 'list.csv' } : {});
  await insertQueuedJob(
    database,
    {
      id: jobId,
      userId,
      sandbox: true,
      totalEmails: count,
      validEmails: count,
      invalidEmails: 0,
      duplicateEmails: 0,
      ...stored,
      uploadBytes: 0,
      reservedDay: null,
      reservedFree: 0,
      reservedCredits: 0,
    },
    { emails, rows, duplicateOf: new Int32Array(count).fill(-1) },
    1000,
  );
  const at = Date.now();
  for (let start = 0; start < count; start += 10_000) {
    const batch: unknown[][] = [];
    for (let idx = start; idx < Math.min(count, start + 10_000); idx++) {
      batch.push(verificationRow(sandboxVerdict(emails[idx]!), { userId, jobId, idx, sandbox: true, source: 'bulk', cached: false, at }));
    }
    await saveResults(database, batch);
  }
  await database.prisma.job.update({ where: { id: jobId }, data: { status: 'completed', completedAt: new Date() } });
  await database.prisma.$executeRawUnsafe(`UPDATE job_chunks SET state = 'done' WHERE job_id = ?`, jobId);
}

async function fixture(): Promise<{ database: Database; fx: Fixture }> {
  const dir = join(opts.dir!, `${ROWS}-${UPLOAD}`);
  mkdirSync(dir, { recursive: true });
  const url = `file:${join(dir, 'bench.db')}`;
  process.env.DATABASE_URL = url;
  const meta = join(dir, 'fixture.json');
  const database = await useDatabase(url);
  if (existsSync(meta)) return { database, fx: JSON.parse(readFileSync(meta, 'utf8')) as Fixture };
  const t0 = performance.now();
  const account = await ensureAccount(database, 'csv-bench@example.com');
  const { key } = await createApiKey(database, account.id, 'bench');
  const fx: Fixture = { jobId: 'job_csvbench', uploadJobId: UPLOAD ? 'job_csvbench_upload' : null, key };
  await build(database, account.id, fx.jobId, ROWS, false);
  if (fx.uploadJobId) await build(database, account.id, fx.uploadJobId, UPLOAD, true);
  writeFileSync(meta, JSON.stringify(fx));
  console.log(`built ${dir} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return { database, fx };
}

function rssSampler() {
  const samples = [process.memoryUsage.rss()];
  const timer = setInterval(() => samples.push(process.memoryUsage.rss()), 50);
  return () => {
    clearInterval(timer);
    samples.push(process.memoryUsage.rss());
    return { startMb: samples[0]! / 1048576, peakMb: Math.max(...samples) / 1048576 };
  };
}

type ResultsCsv = typeof currentCsv;

async function inProcess(resultsCsv: ResultsCsv, database: Database, jobId: string, expected: number) {
  const job = await database.prisma.job.findUniqueOrThrow({ where: { id: jobId } });
  const stop = rssSampler();
  const t0 = performance.now();
  const reader = resultsCsv(database, job).getReader();
  let bytes = 0;
  let lines = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.length;
    for (let i = value.indexOf(10); i !== -1; i = value.indexOf(10, i + 1)) lines++;
  }
  const ms = performance.now() - t0;
  const mem = stop();
  if (lines - 1 !== expected) throw new Error(`CSV has ${lines - 1} rows, expected ${expected}`);
  return { rowsPerSec: expected / (ms / 1000), mb: bytes / 1048576, ms, ...mem };
}

async function overHttp(resultsCsv: ResultsCsv, database: Database, fx: Fixture, jobId: string, expected: number) {
  const { pipeToNodeResponse } = (await import('next/dist/server/pipe-readable.js')) as unknown as {
    pipeToNodeResponse(body: ReadableStream<Uint8Array>, res: http.ServerResponse): Promise<void>;
  };
  const server = http.createServer(async (_req, res) => {
    const job = await database.prisma.job.findUniqueOrThrow({ where: { id: jobId } });
    res.setHeader('content-type', 'text/csv; charset=utf-8');
    await pipeToNodeResponse(resultsCsv(database, job), res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as import('node:net').AddressInfo;
  try {
    const stop = rssSampler();
    const d = await downloadCsv(`http://127.0.0.1:${port}`, { authorization: `Bearer ${fx.key}`, 'x-ev-sandbox': 'true' }, jobId);
    const mem = stop();
    if (d.rows !== expected) throw new Error(`CSV has ${d.rows} rows, expected ${expected}`);
    return { rowsPerSec: d.rowsPerSec, mb: d.mb, ms: d.totalMs, ...mem };
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

/** `next start` from `dir` against the fixture's database; the caller stops it. */
async function nextStart(dir: string) {
  const port = await freePort();
  const child = spawn(join(resolve(dir), 'node_modules/.bin/next'), ['start', '-p', String(port), '-H', '127.0.0.1'], {
    cwd: resolve(dir),
    env: { ...process.env, EV_ALLOW_PRIVATE_NETWORKS: 'true', EV_ALLOW_PLACEHOLDER_IDENTITY: 'true' },
    detached: true,
    stdio: 'ignore',
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + 60_000; ; ) {
    if (child.exitCode !== null) throw new Error(`next start in ${dir} exited (${child.exitCode})`);
    const ok = await fetch(`${baseUrl}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) throw new Error(`next start in ${dir} did not come up`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    baseUrl,
    pid: child.pid!,
    stop: () =>
      new Promise<void>((done) => {
        child.once('exit', () => done());
        process.kill(-child.pid!, 'SIGTERM');
      }),
  };
}

async function viaNext(server: { baseUrl: string; pid: number }, fx: Fixture, jobId: string, expected: number) {
  const rss = sampleRss(server.pid);
  const d = await downloadCsv(server.baseUrl, { authorization: `Bearer ${fx.key}`, 'x-ev-sandbox': 'true' }, jobId);
  const mem = rss.stop();
  if (d.rows !== expected) throw new Error(`CSV has ${d.rows} rows, expected ${expected}`);
  return { rowsPerSec: d.rowsPerSec, mb: d.mb, ms: d.totalMs, startMb: mem.startMb, peakMb: mem.peakMb };
}

const { database, fx } = await fixture();
const impls: [string, ResultsCsv][] = [['', currentCsv]];
if (opts.impl) impls.push([`[${opts.impl}] `, ((await import(resolve(opts.impl))) as { resultsCsv: ResultsCsv }).resultsCsv]);
const report = (label: string, r: { rowsPerSec: number; mb: number; ms: number; startMb: number; peakMb: number }) =>
  console.log(
    `${label.padEnd(44)} ${Math.round(r.rowsPerSec).toLocaleString('en-US').padStart(9)} rows/s  ${r.mb.toFixed(1)} MB  ${(r.ms / 1000).toFixed(2)} s  RSS ${r.startMb.toFixed(0)} → peak ${r.peakMb.toFixed(0)} MB`,
  );
const jobs: [string, string, number][] = [[`${ROWS} rows`, fx.jobId, ROWS]];
if (fx.uploadJobId) jobs.push([`${UPLOAD} rows + 3 uploaded`, fx.uploadJobId, UPLOAD]);
if (opts.verify) {
  for (const [, jobId] of jobs) {
    const digests: string[] = [];
    for (const [, impl] of impls) {
      const hash = createHash('sha256');
      const job = await database.prisma.job.findUniqueOrThrow({ where: { id: jobId } });
      for await (const chunk of impl(database, job) as unknown as AsyncIterable<Uint8Array>) hash.update(chunk);
      digests.push(hash.digest('hex'));
    }
    console.log(`${jobId}: ${digests.join(' ')} ${new Set(digests).size === 1 ? 'identical' : 'DIFFERENT'}`);
  }
}
const local = !opts.next?.length;
if (local) for (const [, impl] of impls) await inProcess(impl, database, fx.jobId, ROWS); // warm-up: page cache, JIT
for (let i = 0; local && i < REPEAT; i++) {
  for (const [name, impl] of impls) {
    for (const [label, jobId, n] of jobs) {
      report(`${name}in-process ${label}`, await inProcess(impl, database, jobId, n));
      if (opts.http) report(`${name}http ${label}`, await overHttp(impl, database, fx, jobId, n));
    }
  }
}
if (opts.next?.length) {
  await database.prisma.$disconnect(); // the servers migrate and read the file themselves
  const servers = [];
  for (const dir of opts.next) {
    const server = await nextStart(dir);
    await viaNext(server, fx, fx.jobId, ROWS); // warm-up: route compiled and loaded, page cache
    servers.push({ dir, server });
  }
  try {
    for (let i = 0; i < REPEAT; i++) {
      for (const { dir, server } of servers) {
        for (const [label, jobId, n] of jobs) report(`next start [${dir}] ${label}`, await viaNext(server, fx, jobId, n));
      }
    }
  } finally {
    for (const { server } of servers) await server.stop();
  }
} else {
  await database.prisma.$disconnect();
}
process.exit(0);
