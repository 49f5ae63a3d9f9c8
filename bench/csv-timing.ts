import { spawn } from 'node:child_process';
import http from 'node:http';
import { join, resolve } from 'node:path';
import type { Database } from '../lib/db/client';
import type { resultsCsv } from '../lib/jobs/export/csv';
import { downloadCsv } from './bulk';
import type { Fixture } from './csv-fixture';
import { freePort, sampleRss } from './server';

// The three ways bench/csv.ts reads a job's CSV and times it: the stream in this process, the same
// stream served over HTTP as a route's Response is, and `next start` of a build.

/** One timed read: rows per second, size, time, and the RSS at the start and at its peak. */
export interface CsvTiming {
  rowsPerSec: number;
  mb: number;
  ms: number;
  startMb: number;
  peakMb: number;
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

/** lib/jobs/export/csv.ts resultsCsv, or an older copy of it (--impl). */
export type ResultsCsv = typeof resultsCsv;

export async function inProcess(resultsCsv: ResultsCsv, database: Database, jobId: string, expected: number): Promise<CsvTiming> {
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

export async function overHttp(resultsCsv: ResultsCsv, database: Database, fx: Fixture, jobId: string, expected: number): Promise<CsvTiming> {
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
export async function nextStart(dir: string) {
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

export async function viaNext(server: { baseUrl: string; pid: number }, fx: Fixture, jobId: string, expected: number): Promise<CsvTiming> {
  const rss = sampleRss(server.pid);
  const d = await downloadCsv(server.baseUrl, { authorization: `Bearer ${fx.key}`, 'x-ev-sandbox': 'true' }, jobId);
  const mem = rss.stop();
  if (d.rows !== expected) throw new Error(`CSV has ${d.rows} rows, expected ${expected}`);
  return { rowsPerSec: d.rowsPerSec, mb: d.mb, ms: d.totalMs, startMb: mem.startMb, peakMb: mem.peakMb };
}
