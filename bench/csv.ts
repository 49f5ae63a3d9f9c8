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
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { resultsCsv as currentCsv } from '../lib/jobs/export/csv';
import { fixture } from './csv-fixture';
import { inProcess, nextStart, overHttp, viaNext, type CsvTiming, type ResultsCsv } from './csv-timing';

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

const { database, fx } = await fixture(opts.dir!, ROWS, UPLOAD);
const impls: [string, ResultsCsv][] = [['', currentCsv]];
if (opts.impl) impls.push([`[${opts.impl}] `, ((await import(resolve(opts.impl))) as { resultsCsv: ResultsCsv }).resultsCsv]);
const report = (label: string, r: CsvTiming) =>
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
