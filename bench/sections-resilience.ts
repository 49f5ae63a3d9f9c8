import { runBodiesBench } from './bodies';
import { runChaosBench } from './chaos';
import { fmt, quick, results, row } from './report';
import { startServer } from './server';
import { runSoak } from './soak';
import { workerThroughput } from './worker-throughput';
import { runWorkerSoak } from './worker-soak';

// The bench's sections on staying up (bench/run.ts runs them): memory and descriptors over long
// runs of the web server and of a worker, the largest bodies, and kill -9 at random failpoints.
// Each prints its rows and keeps its figures.

export async function soakBench() {
  const seconds = quick ? 60 : 600;
  console.log(`\n[7] soak: ${seconds} s of steady mixed load on next start (singles, /v1/verify, instant and 5,000-address jobs with downloads, history)`);
  // its one account submits more sandbox jobs than the abuse limits (lib/api/limits.ts) let a user
  const server = await startServer({ env: { EV_SANDBOX_JOBS_PER_HOUR: '1000000', EV_CREATE_RATE_PER_MINUTE: '1000000' } });
  try {
    const r = await runSoak(server, seconds * 1000, (line) => console.log(line));
    results.soak = r;
    if (r.errors) throw new Error(`soak: ${r.errors} failed requests; first: ${r.firstError}`);
    row('soak: requests / jobs / CSV rows', `${r.requests.toLocaleString('en-US')} / ${r.jobs} / ${r.csvRows.toLocaleString('en-US')}`);
    row(
      'soak: RSS MB second fifth → last fifth (slope MB/min)',
      `${r.early.rssMb} → ${r.late.rssMb} (${fmt(r.rssSlopeMbPerMin, 2)})`,
      'growth ≤ 50 MB',
      r.rssGrowthMb <= 50,
    );
    row('soak: open descriptors second fifth → last fifth', `${r.early.fds} → ${r.late.fds}`, 'growth ≤ 5', r.fdGrowth <= 5);
  } finally {
    await server.stop();
  }
}

export async function workerSoakBench() {
  const seconds = quick ? 60 : 600;
  console.log(`\n[7b] worker soak: ${seconds} s of one worker on PostgreSQL fed production jobs over the provider mix and 20,000-address sandbox jobs`);
  const r = await runWorkerSoak(seconds * 1000, (line) => console.log(line));
  results.workerSoak = r;
  row('worker soak: jobs production / sandbox; addresses verified', `${r.jobs.production} / ${r.jobs.sandbox}; ${r.verified.toLocaleString('en-US')}`);
  row(
    'worker soak: RSS MB second fifth → last fifth, peak (slope MB/min)',
    `${r.early.rssMb} → ${r.late.rssMb}, ${r.peakMb} (${fmt(r.rssSlopeMbPerMin, 2)})`,
    'growth ≤ 50 MB',
    r.rssGrowthMb <= 50,
  );
}

export async function bodiesBench() {
  console.log('\n[8] the largest bodies: a 1M-row CSV upload and hostile bodies of its size, each on a fresh next start (1024 MB heap)');
  const r = await runBodiesBench((line) => console.log(line));
  results.bodies = r;
  for (const body of r) {
    row(
      `bodies: ${body.kind} (${fmt(body.bodyMb, 0)} MB): status, peak RSS MB`,
      `${body.status}, ${fmt(body.peakRssMb, 0)}`,
      'peak ≤ 900 MB',
      body.peakRssMb <= 900,
    );
  }
}

export async function chaosBench() {
  console.log(`\n[13] worker throughput (in-process, sandbox engine, ${quick ? '20,000' : '100,000'} addresses per job)`);
  for (const f of await workerThroughput(quick ? 20_000 : 100_000)) row(`worker: ${f.dialect} ${f.mode} addresses/s`, fmt(f.perSecond, 0));
  console.log('\n[14] chaos: 10 production jobs, kill -9 of workers and the web server at random failpoints, random cancels, a PostgreSQL restart');
  const r = await runChaosBench({ addressesPerJob: quick ? 150 : 300, log: (line) => console.log(line) });
  results.chaos = r;
  row('chaos: jobs / addresses / results stored', `${r.jobs} / ${r.addresses} / ${r.stored}`);
  row('chaos: cancels / worker kills / web server kills / PostgreSQL restarts', `${r.cancels} / ${r.workerKills} / ${r.serverKills} / ${r.pgRestarts}`);
  row(
    'chaos: jobs by status at the end',
    Object.entries(r.terminal)
      .map(([k, v]) => `${k} ${v}`)
      .join(', '),
    'all terminal',
    (r.terminal.queued ?? 0) + (r.terminal.processing ?? 0) === 0,
  );
  row(
    'chaos: accounts whose books hold (SQL) / ledger audit problems / stored twice',
    `${r.audit.accounts - r.audit.wrong.length} of ${r.audit.accounts} / ${r.audit.ledgerProblems.length} / ${r.audit.storedTwice}`,
    'all / 0 / 0',
    r.audit.ok,
  );
  row('chaos: wall s', fmt(r.wallMs / 1000, 1));
  if (!r.audit.ok) console.log(`  chaos audit: ${JSON.stringify(r.audit)}`);
}
