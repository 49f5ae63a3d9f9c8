/**
 * Benchmark of the sandbox API against `next start` on a fresh SQLite database.
 *   npm run bench              single vs health (10 s each), 100k and 1M bulk jobs, 1M-row CSV download
 *   npm run bench -- --quick   single vs health (3 s each) and the 100k bulk job only
 * Prints a table with a PASS/FAIL column per target and writes bench/results/latest.json.
 * Exits non-zero only when the benchmark itself fails, never for a missed target.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { address, bulkBody, downloadCsv, runBulk, type BulkResult, type DownloadResult } from './bulk';
import { load, merge, request, staleSocketRetries, type LoadResult, type RequestSpec } from './load';
import { sampleRss, startServer, treeRssMb, type BenchServer } from './server';

const quick = process.argv.includes('--quick');
const CONCURRENCY = 10;
const LOAD_MS = quick ? 3_000 : 10_000;
const WARMUP = 300;
const SLICE_MS = 1_000;
const HERE = new URL('.', import.meta.url).pathname;

interface Row { metric: string; value: string; target?: string; pass?: boolean }
const rows: Row[] = [];
const results: Record<string, unknown> = {};
const fmt = (n: number, digits = 1) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

function row(metric: string, value: string, target?: string, pass?: boolean) {
  rows.push({ metric, value, target, pass });
  console.log(`  ${metric}: ${value}${target ? `  (target ${target}: ${pass ? 'PASS' : 'FAIL'})` : ''}`);
}

async function warmUp(server: BenchServer, make: (i: number) => RequestSpec) {
  for (let i = 0; i < WARMUP; i += CONCURRENCY) {
    await Promise.all(Array.from({ length: CONCURRENCY }, async (_, j) => {
      const reply = await request(server.baseUrl, make(1_000_000_000 + i + j));
      if (reply.status !== 200) throw new Error(`warm-up ${make(0).path} → ${reply.status} ${reply.body.toString().slice(0, 300)}`);
    }));
  }
}

async function singleVsHealth(server: BenchServer, auth: Record<string, string>) {
  console.log(`\n[1] POST /v1/verify/single (sandbox) vs GET /v1/health, concurrency ${CONCURRENCY}, ${LOAD_MS / 1000} s each in alternating ${SLICE_MS / 1000} s slices`);
  const health = (): RequestSpec => ({ method: 'GET', path: '/v1/health' });
  const single = (i: number): RequestSpec => ({
    method: 'POST', path: '/v1/verify/single',
    headers: { ...auth, 'content-type': 'application/json' },
    body: Buffer.from(JSON.stringify({ email: address(i) })),
  });
  await warmUp(server, health);
  await warmUp(server, single);
  // alternate 1 s slices of each route, so that background load on the machine hits both alike
  const hs: Awaited<ReturnType<typeof load>>[] = [];
  const ss: Awaited<ReturnType<typeof load>>[] = [];
  for (let t = 0; t < LOAD_MS; t += SLICE_MS) {
    hs.push(await load(server.baseUrl, health, CONCURRENCY, SLICE_MS));
    ss.push(await load(server.baseUrl, single, CONCURRENCY, SLICE_MS, ss.reduce((a, r) => a + r.requests + r.errors + CONCURRENCY, 0)));
  }
  const h: LoadResult = merge(hs);
  const s: LoadResult = merge(ss);
  for (const [name, r] of [['health', h], ['single', s]] as const) {
    if (r.errors) throw new Error(`${name}: ${r.errors} failed requests; first: ${r.firstError}`);
  }
  const ratio = s.rps / h.rps;
  results.health = h;
  results.single = s;
  results.singleToHealthRatio = ratio;
  row('health req/s', fmt(h.rps, 0));
  row('health p50 / p99 ms', `${fmt(h.p50Ms, 2)} / ${fmt(h.p99Ms, 2)}`);
  row('single req/s', fmt(s.rps, 0));
  const sliceRatios = ss.map((r, i) => r.rps / hs[i].rps);
  results.sliceRatios = sliceRatios;
  row('single / health ratio', fmt(ratio, 2), '≥ 0.80', ratio >= 0.8);
  row('  per-slice ratio min / median / max', `${fmt(Math.min(...sliceRatios), 2)} / ${fmt([...sliceRatios].sort((a, b) => a - b)[sliceRatios.length >> 1], 2)} / ${fmt(Math.max(...sliceRatios), 2)}`);
  row('single p50 ms', fmt(s.p50Ms, 2));
  row('single p99 ms', fmt(s.p99Ms, 2), '< 50', s.p99Ms < 50);
  row('single max ms', fmt(s.maxMs, 2));
}

async function bulk(server: BenchServer, auth: Record<string, string>, emails: number, targetMs: number, watchRss: boolean): Promise<BulkResult> {
  const label = emails.toLocaleString('en-US');
  console.log(`\n[2] sandbox bulk of ${label} addresses`);
  const body = bulkBody(emails);
  const rssBefore = treeRssMb(server.pid);
  const rss = sampleRss(server.pid);
  let r: BulkResult;
  let peakDuringSubmitMb = NaN;
  try {
    r = await runBulk(server.baseUrl, auth, body, emails, Math.max(targetMs * 5, 120_000), () => { peakDuringSubmitMb = rss.peakSoFar(); });
  } finally {
    var mem = rss.stop();
  }
  results[`bulk${emails}`] = { ...r, rssBeforeMb: rssBefore, rssPeakDuringSubmitMb: peakDuringSubmitMb, rss: mem };
  row(`bulk ${label}: submit → completed s`, fmt(r.totalMs / 1000, 2), `< ${targetMs / 1000}`, r.totalMs < targetMs);
  row(`bulk ${label}: submit request s (${fmt(r.bodyMb, 1)} MB body)`, fmt(r.submitMs / 1000, 2));
  row(`bulk ${label}: queued s / after submit s`, `${fmt(r.queuedMs / 1000, 2)} / ${fmt(r.afterSubmitMs / 1000, 2)}`);
  row(`bulk ${label}: status polls n / avg ms / max ms`, `${r.polls} / ${fmt(r.pollAvgMs, 1)} / ${fmt(r.pollMaxMs, 1)}`);
  console.log(`  progress seen by polls [ms after submit answer, %]: ${r.progress.map(([t, p]) => `${t}:${p}`).join(' ')}`);
  const h = r.healthDuringJob;
  row(`bulk ${label}: /v1/health during job: max ms / probes > 100 ms`, `${fmt(h.maxMs, 0)} / ${h.over100Ms} of ${h.probes}`);
  row(`bulk ${label}: server RSS MB before / peak in submit request / end`, `${fmt(rssBefore, 0)} / ${fmt(peakDuringSubmitMb, 0)} / ${fmt(mem.endMb, 0)}`);
  if (watchRss) {
    row(`bulk ${label}: server peak RSS MB (before ${fmt(rssBefore, 0)})`, fmt(mem.peakMb, 0), '< 600', mem.peakMb < 600);
  } else {
    row(`bulk ${label}: server peak RSS MB (before ${fmt(rssBefore, 0)})`, fmt(mem.peakMb, 0));
  }
  return r;
}

async function download(server: BenchServer, auth: Record<string, string>, jobId: string, expected: number) {
  console.log(`\n[3] CSV download of the ${expected.toLocaleString('en-US')}-row job`);
  const rss = sampleRss(server.pid);
  let d: DownloadResult;
  try {
    d = await downloadCsv(server.baseUrl, auth, jobId);
  } finally {
    var mem = rss.stop();
  }
  if (d.rows !== expected) throw new Error(`CSV has ${d.rows} rows, expected ${expected}`);
  results.download = { ...d, rss: mem };
  row('csv rows/s', fmt(d.rowsPerSec, 0), '≥ 200,000', d.rowsPerSec >= 200_000);
  row('csv rows / MB / first byte ms / total s', `${d.rows.toLocaleString('en-US')} / ${fmt(d.mb, 1)} / ${fmt(d.firstByteMs, 0)} / ${fmt(d.totalMs / 1000, 2)}`);
  const growth = mem.peakMb - mem.startMb;
  row(`csv server RSS start / peak / end MB`, `${fmt(mem.startMb, 0)} / ${fmt(mem.peakMb, 0)} / ${fmt(mem.endMb, 0)}`, 'flat (peak ≤ start + 100)', growth <= 100);
}

function printTable() {
  const head = ['metric', 'value', 'target', 'result'];
  const body = rows.map((r) => [r.metric, r.value, r.target ?? '', r.target ? (r.pass ? 'PASS' : 'FAIL') : '']);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 1 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join(' | ');
  console.log(`\n${line(head)}\n${widths.map((w) => '-'.repeat(w)).join('-|-')}`);
  for (const b of body) console.log(line(b));
}

function gitRev(): string {
  try { return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim(); } catch { return 'unknown'; }
}

async function main() {
  const started = new Date();
  console.log(`email-verifier bench${quick ? ' (--quick)' : ''}: starting next start on a fresh SQLite database …`);
  const server = await startServer();
  console.log(`server ${server.baseUrl} (pid ${server.pid}), database in ${server.dbDir}`);
  const auth = { authorization: `Bearer ${server.apiKey}`, 'x-ev-sandbox': 'true' };
  let failure: unknown;
  try {
    await singleVsHealth(server, auth);
    await bulk(server, auth, 100_000, 10_000, false);
    if (!quick) {
      const big = await bulk(server, auth, 1_000_000, 60_000, true);
      await download(server, auth, big.jobId, 1_000_000);
    }
  } catch (e) {
    failure = e;
  } finally {
    if (failure) console.error(`\nserver output (tail):\n${server.log().slice(-4000)}`);
    await server.stop();
  }
  printTable();
  if (staleSocketRetries) console.log(`(${staleSocketRetries} requests re-sent after the server reset an idle keep-alive socket)`);
  const targets = rows.filter((r) => r.target);
  const report = {
    started: started.toISOString(), quick, git: gitRev(), node: process.version, cpus: cpus().length, cpuModel: cpus()[0]?.model,
    concurrency: CONCURRENCY, loadSeconds: LOAD_MS / 1000,
    error: failure ? String((failure as Error).stack ?? failure) : null,
    staleSocketRetries,
    targets: targets.map((r) => ({ metric: r.metric, value: r.value, target: r.target, pass: r.pass })),
    results,
  };
  mkdirSync(join(HERE, 'results'), { recursive: true });
  writeFileSync(join(HERE, 'results/latest.json'), `${JSON.stringify(report, null, 2)}\n`);
  console.log(`\n${targets.filter((r) => r.pass).length}/${targets.length} targets met; written to bench/results/latest.json`);
  if (failure) {
    console.error(`\nbench failed: ${(failure as Error).stack ?? failure}`);
    process.exitCode = 1;
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
}).finally(() => {
  // the keep-alive agent would hold the event loop open
  setTimeout(() => process.exit(), 100).unref();
});
