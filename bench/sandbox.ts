/**
 * The sandbox section: the single call against a bare Next.js app's JSON route and /health, then
 * 100k and 1M sandbox jobs and the 1M-row CSV download, on `next start` with a fresh SQLite database;
 * then the 1M job on PostgreSQL with one worker (bench/sandbox-pg.ts).
 */
import { address, bulkBody, downloadCsv, runBulk, type BulkResult, type DownloadResult } from './bulk';
import { load, merge, request, type LoadResult, type RequestSpec } from './load';
import { startBareServer } from './bare';
import { CONCURRENCY, LOAD_MS, bulkOnly, bulkPgOnly, fmt, quick, results, row, singleOnly } from './report';
import { MEM_TRACE_TOKEN, traceMemory } from './mem-trace';
import { sandboxPgJob } from './sandbox-pg';
import { sampleRss, startServer, treeCpuMs, treeRssMb, type BenchServer } from './server';

const WARMUP = 300;
const SLICE_MS = 1_000;

async function warmUp(baseUrl: string, make: (i: number) => RequestSpec) {
  for (let i = 0; i < WARMUP; i += CONCURRENCY) {
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async (_, j) => {
        const reply = await request(baseUrl, make(1_000_000_000 + i + j));
        if (reply.status !== 200) throw new Error(`warm-up ${make(0).path} → ${reply.status} ${reply.body.toString().slice(0, 300)}`);
      }),
    );
  }
}

async function singleVsBare(server: BenchServer, auth: Record<string, string>) {
  console.log(
    `\n[1] POST /v1/verify/single (sandbox) vs a bare Next.js app's GET JSON route and its POST route of the same body and answer, and GET /health, concurrency ${CONCURRENCY}, ${LOAD_MS / 1000} s each in alternating ${SLICE_MS / 1000} s slices`,
  );
  const bare = await startBareServer(server.nodeOptions);
  try {
    const health = (): RequestSpec => ({ method: 'GET', path: '/health' });
    const ping = (): RequestSpec => ({ method: 'GET', path: bare.path });
    const echo = (i: number): RequestSpec => ({
      method: 'POST',
      path: bare.echoPath,
      headers: { 'content-type': 'application/json' },
      body: Buffer.from(JSON.stringify({ email: address(i) })),
    });
    const single = (i: number): RequestSpec => ({
      method: 'POST',
      path: '/v1/verify/single',
      headers: { ...auth, 'content-type': 'application/json' },
      body: Buffer.from(JSON.stringify({ email: address(i) })),
    });
    await warmUp(bare.baseUrl, ping);
    await warmUp(bare.baseUrl, echo);
    await warmUp(server.baseUrl, health);
    await warmUp(server.baseUrl, single);
    // alternate 1 s slices of each, so that background load on the machine hits all alike
    const bs: Awaited<ReturnType<typeof load>>[] = [];
    const hs: Awaited<ReturnType<typeof load>>[] = [];
    const es: Awaited<ReturnType<typeof load>>[] = [];
    const ss: Awaited<ReturnType<typeof load>>[] = [];
    // and the CPU each server spends in its own slices: per request, a figure the machine's other load barely moves
    const cpu = { bare: 0, single: 0, health: 0, echo: 0 };
    const timed = async <T>(pid: number, which: keyof typeof cpu, run: () => Promise<T>): Promise<T> => {
      const before = treeCpuMs(pid);
      const result = await run();
      cpu[which] += treeCpuMs(pid) - before;
      return result;
    };
    for (let t = 0; t < LOAD_MS; t += SLICE_MS) {
      bs.push(await timed(bare.pid, 'bare', () => load(bare.baseUrl, ping, CONCURRENCY, SLICE_MS)));
      es.push(await timed(bare.pid, 'echo', () => load(bare.baseUrl, echo, CONCURRENCY, SLICE_MS)));
      ss.push(
        await timed(server.pid, 'single', () =>
          load(
            server.baseUrl,
            single,
            CONCURRENCY,
            SLICE_MS,
            ss.reduce((a, r) => a + r.requests + r.errors + CONCURRENCY, 0),
          ),
        ),
      );
      hs.push(await timed(server.pid, 'health', () => load(server.baseUrl, health, CONCURRENCY, SLICE_MS)));
    }
    const b: LoadResult = merge(bs);
    const h: LoadResult = merge(hs);
    const s: LoadResult = merge(ss);
    const e: LoadResult = merge(es);
    for (const [name, r] of [
      ['bare', b],
      ['bare POST', e],
      ['health', h],
      ['single', s],
    ] as const) {
      if (r.errors) throw new Error(`${name}: ${r.errors} failed requests; first: ${r.firstError}`);
    }
    const ratio = s.rps / b.rps;
    results.bare = b;
    results.health = h;
    results.single = s;
    results.bareEcho = e;
    results.singleToEchoRatio = s.rps / e.rps;
    results.singleToBareRatio = ratio;
    results.singleToHealthRatio = s.rps / h.rps;
    row('bare Next.js route req/s', fmt(b.rps, 0));
    row('bare p50 / p99 ms', `${fmt(b.p50Ms, 2)} / ${fmt(b.p99Ms, 2)}`);
    row('health req/s (ratio to bare)', `${fmt(h.rps, 0)} (${fmt(h.rps / b.rps, 2)})`);
    row('health p50 / p99 ms', `${fmt(h.p50Ms, 2)} / ${fmt(h.p99Ms, 2)}`);
    row('single req/s', fmt(s.rps, 0));
    const sliceRatios = ss.map((r, i) => r.rps / bs[i].rps);
    results.sliceRatios = sliceRatios;
    row('single / bare ratio', fmt(ratio, 2), '≥ 0.90', ratio >= 0.9); // issue 34's target
    row(
      '  per-slice ratio min / median / max',
      `${fmt(Math.min(...sliceRatios), 2)} / ${fmt([...sliceRatios].sort((x, y) => x - y)[sliceRatios.length >> 1], 2)} / ${fmt(Math.max(...sliceRatios), 2)}`,
    );
    row('single / health ratio', fmt(s.rps / h.rps, 2));
    row('bare POST (same body and answer) req/s, single / it', `${fmt(e.rps, 0)}, ${fmt(s.rps / e.rps, 2)}`);
    const perRequestUs = {
      bare: (cpu.bare * 1000) / b.requests,
      single: (cpu.single * 1000) / s.requests,
      health: (cpu.health * 1000) / h.requests,
      echo: (cpu.echo * 1000) / e.requests,
    };
    results.serverCpuUsPerRequest = perRequestUs;
    row(
      'server CPU µs per request: bare / bare POST / health / single',
      `${fmt(perRequestUs.bare, 0)} / ${fmt(perRequestUs.echo, 0)} / ${fmt(perRequestUs.health, 0)} / ${fmt(perRequestUs.single, 0)}`,
    );
    row('  bare / single CPU per request', fmt(perRequestUs.bare / perRequestUs.single, 2));
    row('single p50 ms', fmt(s.p50Ms, 2));
    row('single p99 ms', fmt(s.p99Ms, 2), '< 50', s.p99Ms < 50);
    row('single max ms', fmt(s.maxMs, 2));
  } finally {
    await bare.stop();
  }
}

async function bulk(server: BenchServer, auth: Record<string, string>, emails: number, targetMs: number, watchRss: boolean): Promise<BulkResult> {
  const label = emails.toLocaleString('en-US');
  console.log(`\n[2] sandbox bulk of ${label} addresses`);
  const body = bulkBody(emails);
  const rssBefore = treeRssMb(server.pid);
  const rss = sampleRss(server.pid);
  const cpuBefore = treeCpuMs(server.pid);
  const traceFile = process.env.BENCH_MEM_TRACE && emails === 1_000_000 ? process.env.BENCH_MEM_TRACE : null;
  const trace = traceFile ? traceMemory(server.baseUrl, server.pid, traceFile) : null;
  let r: BulkResult;
  let mem: ReturnType<typeof rss.stop>;
  let peakDuringSubmitMb = NaN;
  try {
    // BENCH_BULK_TIMEOUT_MS: a loaded machine may need longer than the default to see the job through
    const timeoutMs = Number(process.env.BENCH_BULK_TIMEOUT_MS ?? Math.max(targetMs * 5, 120_000));
    r = await runBulk(server.baseUrl, auth, body, emails, timeoutMs, () => {
      peakDuringSubmitMb = rss.peakSoFar();
    });
  } finally {
    mem = rss.stop();
    const peak = trace?.stop();
    if (peak) console.log(`  memory trace in ${traceFile}; at the RSS peak: ${JSON.stringify(peak)}`);
  }
  const cpuMs = treeCpuMs(server.pid) - cpuBefore;
  results[`bulk${emails}`] = { ...r, rssBeforeMb: rssBefore, rssPeakDuringSubmitMb: peakDuringSubmitMb, rss: mem, serverCpuMs: cpuMs };
  row(`bulk ${label}: submit → completed s`, fmt(r.totalMs / 1000, 2), `< ${targetMs / 1000}`, r.totalMs < targetMs);
  row(`bulk ${label}: submit request s (${fmt(r.bodyMb, 1)} MB body)`, fmt(r.submitMs / 1000, 2));
  // the server's CPU time over the same span (submission, worker, status polls): what other load on the machine does not change
  row(`bulk ${label}: server CPU s (submit → completed)`, fmt(cpuMs / 1000, 2));
  row(`bulk ${label}: queued s / after submit s`, `${fmt(r.queuedMs / 1000, 2)} / ${fmt(r.afterSubmitMs / 1000, 2)}`);
  row(`bulk ${label}: status polls n / avg ms / max ms`, `${r.polls} / ${fmt(r.pollAvgMs, 1)} / ${fmt(r.pollMaxMs, 1)}`);
  console.log(`  progress seen by polls [ms after submit answer, %]: ${r.progress.map(([t, p]) => `${t}:${p}`).join(' ')}`);
  const h = r.healthDuringJob;
  row(`bulk ${label}: /health during job: max ms / probes > 100 ms`, `${fmt(h.maxMs, 0)} / ${h.over100Ms} of ${h.probes}`);
  row(`bulk ${label}: server RSS MB before / peak in submit request / end`, `${fmt(rssBefore, 0)} / ${fmt(peakDuringSubmitMb, 0)} / ${fmt(mem.endMb, 0)}`);
  if (watchRss) {
    row(`bulk ${label}: server peak RSS MB (before ${fmt(rssBefore, 0)})`, fmt(mem.peakMb, 0), '< 450', mem.peakMb < 450);
  } else {
    row(`bulk ${label}: server peak RSS MB (before ${fmt(rssBefore, 0)})`, fmt(mem.peakMb, 0));
  }
  return r;
}

async function download(server: BenchServer, auth: Record<string, string>, jobId: string, expected: number) {
  console.log(`\n[3] CSV download of the ${expected.toLocaleString('en-US')}-row job`);
  const rss = sampleRss(server.pid);
  let d: DownloadResult;
  let mem: ReturnType<typeof rss.stop>;
  try {
    d = await downloadCsv(server.baseUrl, auth, jobId);
  } finally {
    mem = rss.stop();
  }
  if (d.rows !== expected) throw new Error(`CSV has ${d.rows} rows, expected ${expected}`);
  results.download = { ...d, rss: mem };
  row('csv rows/s', fmt(d.rowsPerSec, 0), '≥ 200,000', d.rowsPerSec >= 200_000);
  row(
    'csv rows / MB / first byte ms / total s',
    `${d.rows.toLocaleString('en-US')} / ${fmt(d.mb, 1)} / ${fmt(d.firstByteMs, 0)} / ${fmt(d.totalMs / 1000, 2)}`,
  );
  const growth = mem.peakMb - mem.startMb;
  row(
    `csv server RSS start / peak / end MB`,
    `${fmt(mem.startMb, 0)} / ${fmt(mem.peakMb, 0)} / ${fmt(mem.endMb, 0)}`,
    'flat (peak ≤ start + 100)',
    growth <= 100,
  );
}

export async function sandboxBench() {
  if (!bulkPgOnly) await sqliteServerParts();
  if (bulkPgOnly || (!singleOnly && !bulkOnly && !quick)) await sandboxPgJob();
}

async function sqliteServerParts() {
  console.log('\n[sandbox] starting next start on a fresh SQLite database …');
  // BENCH_MEM_TRACE (bench/mem-trace.ts) reads the server's /metrics, which wants a token
  const server = await startServer(process.env.BENCH_MEM_TRACE ? { env: { EV_METRICS_TOKEN: MEM_TRACE_TOKEN } } : {});
  console.log(`server ${server.baseUrl} (pid ${server.pid}), database in ${server.dbDir}`);
  const auth = { authorization: `Bearer ${server.apiKey}`, 'x-ev-sandbox': 'true' };
  let ok = false;
  try {
    if (!bulkOnly) await singleVsBare(server, auth);
    if (!singleOnly) {
      if (!bulkOnly) await bulk(server, auth, 100_000, 10_000, false);
      if (!quick) {
        const big = await bulk(server, auth, 1_000_000, 15_000, true); // issue 34's targets
        await download(server, auth, big.jobId, 1_000_000);
      }
    }
    ok = true;
  } finally {
    if (!ok) console.error(`\nserver output (tail):\n${server.log().slice(-4000)}`);
    await server.stop();
  }
}
