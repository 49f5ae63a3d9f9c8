/**
 * Soak: a steady, mixed load on `next start` (embedded worker, SQLite) for `durationMs`, sampling
 * the server's RSS and open file descriptors (sockets, files, pipes) 60 times (every 10 s in 10 min). After a warm-up
 * fifth, the last fifth of the run is compared with the second: a leak shows as growth.
 * Run alone: npx tsx bench/soak.ts [seconds]
 */
import { readdirSync } from 'node:fs';
import { address, bulkBody } from './bulk';
import { request, type RequestSpec } from './load';
import { processTree, startServer, treeRssMb, type BenchServer } from './server';

export interface SoakReport {
  seconds: number;
  requests: number;
  errors: number;
  firstError?: string;
  jobs: number;
  csvRows: number;
  samples: { t: number; rssMb: number; fds: number }[];
  early: { rssMb: number; fds: number };
  late: { rssMb: number; fds: number };
  rssGrowthMb: number;
  fdGrowth: number;
  /** least-squares slope over the samples after warm-up */
  rssSlopeMbPerMin: number;
}

/** Open file descriptors (sockets, files, pipes) of the server's process tree. */
function fdCount(pid: number): number {
  let n = 0;
  for (const p of processTree(pid)) {
    try {
      n += readdirSync(`/proc/${p}/fd`).length;
    } catch {
      /* exited */
    }
  }
  return n;
}

export async function runSoak(server: BenchServer, durationMs: number, log = console.log): Promise<SoakReport> {
  const auth = { authorization: `Bearer ${server.apiKey}`, 'x-ev-sandbox': 'true', 'content-type': 'application/json' };
  const end = Date.now() + durationMs;
  let requests = 0;
  let errors = 0;
  let firstError: string | undefined;
  let jobs = 0;
  let csvRows = 0;
  let seq = 0;

  const send = async (spec: RequestSpec) => {
    const reply = await request(server.baseUrl, spec);
    requests++;
    if (reply.status >= 300) {
      errors++;
      firstError ??= `${spec.method} ${spec.path} → ${reply.status} ${reply.body.toString().slice(0, 200)}`;
    }
    return reply;
  };
  const json = (body: unknown) => Buffer.from(JSON.stringify(body));

  // Paced clients: each does one thing, then waits, so the load is steady rather than maximal.
  const paced = async (everyMs: number, action: () => Promise<void>) => {
    while (Date.now() < end) {
      const started = Date.now();
      await action();
      await new Promise((r) => setTimeout(r, Math.max(0, everyMs - (Date.now() - started))));
    }
  };
  const singles = () =>
    paced(20, async () => {
      await send({ method: 'POST', path: '/v1/verify/single', headers: auth, body: json({ email: address(seq++) }) });
    });
  const verifies = () =>
    paced(100, async () => {
      await send({ method: 'POST', path: '/v1/verify', headers: auth, body: json({ email: address(seq++) }) });
    });
  const instant = () =>
    paced(200, async () => {
      await send({ method: 'POST', path: '/v1/verify/bulk', headers: auth, body: json({ emails: Array.from({ length: 10 }, () => address(seq++)) }) });
    });
  const reads = () =>
    paced(500, async () => {
      await send({ method: 'GET', path: '/v1/history?limit=50', headers: auth });
      await send({ method: 'GET', path: '/v1/verify/bulk?limit=20', headers: auth });
    });
  // a 5,000-address job every 5 s: submitted, polled to completion, downloaded
  const bulkJobs = () =>
    paced(5_000, async () => {
      const submitted = await send({ method: 'POST', path: '/v1/verify/bulk', headers: auth, body: bulkBody(5_000) });
      const jobId = JSON.parse(submitted.body.toString()).job_id as string | undefined;
      if (!jobId) return;
      for (;;) {
        const status = JSON.parse((await send({ method: 'GET', path: `/v1/verify/bulk/status/${jobId}`, headers: auth })).body.toString());
        if (status.status === 'completed') break;
        if (Date.now() > end + 60_000) return;
        await new Promise((r) => setTimeout(r, 200));
      }
      const csv = await send({ method: 'GET', path: `/v1/verify/bulk/download/${jobId}`, headers: auth });
      csvRows += csv.body.toString().split('\r\n').length - 2;
      jobs++;
    });

  const samples: SoakReport['samples'] = [];
  const started = Date.now();
  const sample = () => {
    const s = { t: Math.round((Date.now() - started) / 1000), rssMb: Math.round(treeRssMb(server.pid)), fds: fdCount(server.pid) };
    samples.push(s);
    log(`  t=${s.t}s rss=${s.rssMb} MB fds=${s.fds} requests=${requests} jobs=${jobs}`);
  };
  const sampler = setInterval(sample, Math.max(1000, durationMs / 60));
  sample();
  try {
    await Promise.all([singles(), singles(), verifies(), instant(), reads(), bulkJobs()]);
  } finally {
    clearInterval(sampler);
  }
  sample();

  const fifth = Math.max(1, Math.floor(samples.length / 5));
  const fds = (xs: typeof samples) => Math.round(xs.reduce((a, s) => a + s.fds, 0) / xs.length);
  const rss = rssTrend(samples);
  const early = { rssMb: rss.earlyMb, fds: fds(samples.slice(fifth, 2 * fifth)) };
  const late = { rssMb: rss.lateMb, fds: fds(samples.slice(-fifth)) };
  return {
    seconds: Math.round(durationMs / 1000),
    requests,
    errors,
    firstError,
    jobs,
    csvRows,
    samples,
    early,
    late,
    rssGrowthMb: late.rssMb - early.rssMb,
    fdGrowth: late.fds - early.fds,
    rssSlopeMbPerMin: rss.slopeMbPerMin,
  };
}

/**
 * A long run's memory from its samples (seconds, MB): the mean of the second fifth and of the last
 * fifth, and the least-squares slope after the first fifth (the warm-up), in MB a minute.
 */
export function rssTrend(samples: { t: number; rssMb: number }[]): { earlyMb: number; lateMb: number; slopeMbPerMin: number } {
  const fifth = Math.max(1, Math.floor(samples.length / 5));
  const mean = (xs: typeof samples) => Math.round(xs.reduce((a, s) => a + s.rssMb, 0) / xs.length);
  const steady = samples.slice(fifth);
  const mt = steady.reduce((a, s) => a + s.t, 0) / steady.length;
  const mr = steady.reduce((a, s) => a + s.rssMb, 0) / steady.length;
  const slope =
    steady.reduce((a, s) => a + (s.t - mt) * (s.rssMb - mr), 0) /
    Math.max(
      1e-9,
      steady.reduce((a, s) => a + (s.t - mt) ** 2, 0),
    );
  return { earlyMb: mean(samples.slice(fifth, 2 * fifth)), lateMb: mean(samples.slice(-fifth)), slopeMbPerMin: Number((slope * 60).toFixed(2)) };
}

if (process.argv[1]?.endsWith('/soak.ts')) {
  const seconds = Number(process.argv[2] ?? 600);
  const server = await startServer();
  try {
    const report = await runSoak(server, seconds * 1000);
    console.log(JSON.stringify({ ...report, samples: undefined }, null, 2));
  } finally {
    await server.stop();
    setTimeout(() => process.exit(), 100).unref();
  }
}
