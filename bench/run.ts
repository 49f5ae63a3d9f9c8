/**
 * The benchmarks, each against real peers: `npm run bench -- --help` prints USAGE below (the sections
 * and the options). The sections' rows are printed by bench/sections-*.ts, sandbox.ts and neighbours.ts.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { baselinePath, comparisonReport, readBaseline, recordBaseline, thisMachine } from './compare';
import { staleSocketRetries } from './load';
import { neighboursBench } from './neighbours';
import { CONCURRENCY, LOAD_MS, printTable, quick, results, rows } from './report';
import { sandboxBench } from './sandbox';
import { booksBench, rateLimitBench, retentionBench, reuseBench } from './sections-accounts';
import { bodiesBench, chaosBench, soakBench, workerSoakBench } from './sections-resilience';
import { claimsBench, egressBench, politenessBench, productionBench, workersBench } from './sections-throughput';

const USAGE = `The benchmarks, each against real peers:
  sandbox     \`next start\` on a fresh SQLite database: single vs a bare Next.js app's JSON route and
              vs /health (10 s each), 100k and 1M bulk jobs, 1M-row CSV download (issues 2, 14); a 1M
              job on PostgreSQL by one in-process worker, submit to completed (issue 34)
  production  checkSyntax throughput in-process; 2,000 addresses over 40 domains through dnsmasq
              and Postfix with 200 ms per SMTP reply, against the ideal time of the limits;
              deep-email-validator on the same list (issue 3)
  workers     3 worker processes vs 1 on PostgreSQL for the same I/O-bound job (issue 5)
  claims      the job queue on PostgreSQL (pg-boss): claim latency with 1 and 4 claimers, a 1M sandbox job by 1 and 4 workers (issue 21)
  soak        10 minutes of steady mixed load on \`next start\`: RSS and open descriptors (issue 5)
  worker-soak 10 minutes of one \`npm run worker\` on PostgreSQL fed production and sandbox jobs: its RSS (issue 21)
  bodies      peak RSS of \`next start\` taking a 1M-row CSV upload and hostile bodies of its size
  ratelimit   GET /v1/account through its handler, per rate store and database (issue 14)
  politeness  1 and 3 workers on PostgreSQL, a provider mix against a mail server counting
              connections: limits and pace at the server, wall time vs the ideal (issue 14)
  egress      one budget per sending IP: a provider-bound job by 1, 2 and 3 workers, each with its
              own EV_SMTP_SOURCE_IP, wall time vs one IP and vs the ideal of N budgets (issue 21)
  books       the credit ledger on the hot paths, in-process on both databases: production single
              checks, instant bulks of 10 and a queued 100k submit (issue 19)
  chaos       10 production jobs under kill -9 of workers and the web server at random failpoints,
              random cancels and a PostgreSQL restart: every job ends, the books hold (issue 19);
              and the worker's own cost per address (not in the default run: --only=chaos)
  retention   a 1M-row list past its account's retention deleted in batches, on both databases, while
              another account makes production single checks: wall time, their p50 / p99 (issue 32)
  neighbours  1M quoted addresses: syntax time and event-loop lag, in-process and as another
              account sees it over HTTP; status of a running 1M-row job, 50% duplicates (issue 20)
  reuse       an upload of 100,000 addresses, 90% verified within the freshness window: time and credits
              with the reuse of fresh results on and off, both databases, in-process (issue 32)
  npm run bench                          all of them (about 27 minutes)
  npm run bench -- --quick               shorter: no 1M job, 1-minute soak, smaller samples
  npm run bench -- --only=production,workers
  npm run bench -- --only=sandbox --sandbox=single   (or =bulk: the 1M job and its CSV only;
                                         =bulk-pg: the 1M job on PostgreSQL only)
  npm run bench -- --only=sandbox --sandbox=single --compare
                                         then before / after per metric against the recorded
                                         figures (bench/results/baseline.json), marking any more
                                         than 10% worse (bench/compare.ts)
  npm run bench -- ... --save-baseline   records this run's figures there (with this machine)
  npm run bench -- --help                this text
Prints a table with a PASS/FAIL column per target and writes bench/results/latest.json.
Exits non-zero only when the benchmark itself fails, never for a missed target or a worse metric.`;

const SECTIONS = [
  'sandbox',
  'production',
  'workers',
  'claims',
  'soak',
  'worker-soak',
  'bodies',
  'ratelimit',
  'politeness',
  'egress',
  'books',
  'retention',
  'reuse',
  'neighbours',
  'chaos',
] as const;
const onlyArg = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length);
// chaos kills processes and restarts a private PostgreSQL: only when asked for by name
const sections = new Set(onlyArg ? onlyArg.split(',') : SECTIONS.filter((s) => s !== 'chaos'));
for (const name of sections) if (!(SECTIONS as readonly string[]).includes(name)) throw new Error(`--only: unknown section ${name} (${SECTIONS.join(', ')})`);
const HERE = new URL('.', import.meta.url).pathname;

function gitRev(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

async function main() {
  if (process.argv.includes('--help')) {
    console.log(USAGE);
    return;
  }
  const started = new Date();
  console.log(`email-verifier bench${quick ? ' (--quick)' : ''}: ${[...sections].join(', ')}`);
  const failures: string[] = [];
  // a section that fails is reported and the others still run
  const section = async (name: (typeof SECTIONS)[number], work: () => Promise<void>) => {
    if (!sections.has(name)) return;
    try {
      await work();
    } catch (e) {
      failures.push(`${name}: ${(e as Error).stack ?? e}`);
      console.error(`\n[${name}] failed: ${(e as Error).stack ?? e}`);
    }
  };
  await section('sandbox', sandboxBench);
  await section('production', productionBench);
  await section('workers', workersBench);
  await section('claims', claimsBench);
  await section('soak', soakBench);
  await section('worker-soak', workerSoakBench);
  await section('bodies', bodiesBench);
  await section('ratelimit', rateLimitBench);
  await section('politeness', politenessBench);
  await section('egress', egressBench);
  await section('books', booksBench);
  await section('retention', retentionBench);
  await section('reuse', reuseBench);
  await section('neighbours', neighboursBench);
  await section('chaos', chaosBench);
  printTable();
  if (staleSocketRetries) console.log(`(${staleSocketRetries} requests re-sent after the server reset an idle keep-alive socket)`);
  const targets = rows.filter((r) => r.target);
  const report = {
    started: started.toISOString(),
    quick,
    git: gitRev(),
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    concurrency: CONCURRENCY,
    loadSeconds: LOAD_MS / 1000,
    errors: failures,
    staleSocketRetries,
    targets: targets.map((r) => ({ metric: r.metric, value: r.value, target: r.target, pass: r.pass })),
    results,
  };
  mkdirSync(join(HERE, 'results'), { recursive: true });
  writeFileSync(join(HERE, 'results/latest.json'), `${JSON.stringify(report, null, 2)}\n`);
  console.log(`\n${targets.filter((r) => r.pass).length}/${targets.length} targets met; written to bench/results/latest.json`);
  const baselineFile = baselinePath(HERE);
  if (process.argv.includes('--compare')) console.log(`\n--compare: ${comparisonReport(readBaseline(baselineFile), results)}`);
  if (process.argv.includes('--save-baseline')) {
    if (failures.length) console.log('\n--save-baseline: not recorded, a section failed');
    else {
      recordBaseline(baselineFile, results, { git: report.git, started: report.started, quick, machine: thisMachine() });
      console.log(`\n--save-baseline: ${Object.keys(results).join(', ')} recorded in bench/results/baseline.json`);
    }
  }
  if (failures.length) {
    console.error(`\n${failures.length} section(s) failed:\n${failures.join('\n')}`);
    process.exitCode = 1;
  }
}

main()
  .catch((e) => {
    console.error(e);
    process.exitCode = 1;
  })
  .finally(() => {
    // the keep-alive agent would hold the event loop open
    setTimeout(() => process.exit(), 100).unref();
  });
