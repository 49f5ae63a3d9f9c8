import { runBooksBench } from './books';
import { runRateLimitBench } from './ratelimit';
import { fmt, quick, results, row } from './report';
import { runRetentionBench } from './retention';
import { runReuseBench } from './reuse';

// The bench's sections on what an account's bookkeeping costs on the hot paths (bench/run.ts runs
// them): the rate stores, the credit ledger, the reuse of fresh results and retention's deletes
// beside another account's checks. Each prints its rows and keeps its figures.

export async function rateLimitBench() {
  const ms = quick ? 2_000 : 6_000;
  console.log(`\n[9] rate stores: GET /v1/account through its handler in this process, concurrency 10, ${ms / 1000} s per store in alternating slices`);
  const figures = await runRateLimitBench(ms, (line) => console.log(line));
  results.rateLimit = figures;
  for (const f of figures) {
    const what = f.store === 'none' ? 'sandbox, not counted' : `production, ${f.store} store`;
    row(
      `rate: ${f.dialect} ${what}: req/s (p99 ms)${f.store === 'none' ? '' : ' / one hit µs'}`,
      `${fmt(f.rps, 0)} (${fmt(f.p99Ms, 2)})${f.store === 'none' ? '' : ` / ${fmt(f.hitUs, 0)}`}`,
    );
  }
}

export async function booksBench() {
  console.log('\n[12] the books on the hot paths: production accounting with the sandbox engine, in this process, concurrency 10');
  const figures = await runBooksBench(quick ? 1000 : 3000, quick ? 100 : 300);
  results.books = figures;
  for (const f of figures) {
    row(
      `books ${f.dialect}: single checks/s (CPU µs each) / instant bulks of 10 per s (CPU µs each) / queued 100k submit ms`,
      `${fmt(f.singlePerSecond, 0)} (${fmt(f.singleCpuUs, 0)}) / ${fmt(f.instantPerSecond, 0)} (${fmt(f.instantCpuUs, 0)}) / ${fmt(f.queued100kMs, 0)}`,
    );
  }
}

export async function reuseBench() {
  console.log('\n[13] reuse of fresh results: 100,000 addresses, 90% verified within the window, reuse off then on (sandbox engine, one in-process worker)');
  const figures = await runReuseBench(quick ? 20_000 : 100_000);
  results.reuse = figures;
  for (const f of figures) {
    row(
      `reuse ${f.dialect} ${f.reuse ? 'on' : 'off'}: submit s / completed s / reused / credits`,
      `${fmt(f.submitMs / 1000, 1)} / ${fmt(f.totalMs / 1000, 1)} / ${f.reused} / ${f.credits}`,
    );
  }
}

export async function retentionBench() {
  const rows = quick ? 100_000 : 1_000_000;
  console.log(
    `\n[13] retention: a ${rows.toLocaleString('en-US')}-row list past its window deleted in batches while another account makes single checks, both databases`,
  );
  const figures = await runRetentionBench(rows);
  results.retention = figures;
  for (const f of figures) {
    row(`retention: ${f.rows.toLocaleString('en-US')}-row list deleted (${f.dialect}), s`, fmt(f.deleteMs / 1000, 1));
    row(`retention: one address erased from a ${f.rows.toLocaleString('en-US')}-row account (${f.dialect}), s`, fmt(f.eraseMs / 1000, 2));
    // the noisy-neighbour bound of docs/limits.md: another account's checks under 300 ms at p99, 2 s at most
    const { before, during } = f.otherChecks;
    row(
      `retention: another account's single check p50 / p99 / max before, during (${f.dialect}), ms`,
      `${fmt(before.p50, 1)} / ${fmt(before.p99, 1)} / ${fmt(before.max, 0)}, ${fmt(during.p50, 1)} / ${fmt(during.p99, 1)} / ${fmt(during.max, 0)}`,
      'p99 < 300, max < 2,000',
      during.p99 < 300 && during.max < 2000,
    );
  }
}
