import { checkSyntax } from '../lib/verifier/syntax';
import { runClaimsBench } from './claims';
import { PACING as EGRESS_PACING, runEgressBench } from './egress';
import { runPolitenessBench } from './politeness';
import { runDeepEmailValidatorComparison, runProductionBench } from './production';
import { fmt, quick, results, row } from './report';
import { runWorkersBench } from './workers';

// The bench's sections on the pace of verification (bench/run.ts runs them): the syntax check, a
// production job against real DNS and SMTP peers, more workers, the queue's claims, one polite
// sender across processes, one budget per sending IP. Each prints its rows and keeps its figures.

/** The syntax check runs on every address of every job: in-process throughput of checkSyntax. */
function syntaxThroughput() {
  const addresses = Array.from({ length: 200_000 }, (_, i) => `john.smith${i}@example${i % 40}.com`);
  const start = performance.now();
  for (const a of addresses) if (!checkSyntax(a).ok) throw new Error(`checkSyntax refused ${a}`);
  const perSecond = addresses.length / ((performance.now() - start) / 1000);
  results.syntaxPerSecond = perSecond;
  row('syntax: checkSyntax addresses/s (in-process)', fmt(perSecond, 0), '≥ 300,000', perSecond >= 300_000);
}

export async function productionBench() {
  syntaxThroughput();
  console.log('\n[4] production mode: 2,000 addresses over 40 domains, real dnsmasq + Postfix, 200 ms per SMTP reply, per-domain 10 / global 100');
  const ours = await runProductionBench();
  results.production = ours;
  row('production: one address alone ms (steady state)', fmt(ours.perAddressMs, 0));
  row('production: ideal s (limits allow) / elapsed s', `${fmt(ours.idealMs / 1000, 2)} / ${fmt(ours.elapsedMs / 1000, 2)}`);
  row('production: elapsed / ideal', fmt(ours.ratio, 2), '≤ 1.10', ours.ratio <= 1.1);
  row(
    'production: verdicts',
    Object.entries(ours.statuses)
      .map(([k, v]) => `${k} ${v}`)
      .join(', '),
  );
  console.log(`\n[5] deep-email-validator 0.1.27 on a sample of the same list, one awaited validate() per address as its README shows`);
  const deep = await runDeepEmailValidatorComparison(quick ? 10 : 40);
  results.deepEmailValidator = deep;
  row('deep-email-validator: ms per address / sample right', `${fmt(deep.perAddressMs, 0)} / ${deep.right} of ${deep.sample}`);
  row('deep-email-validator: projected s for 2,000', fmt(deep.projectedMs / 1000, 0));
  const speedup = deep.projectedMs / ours.elapsedMs;
  row('production: speed-up over deep-email-validator', `${fmt(speedup, 1)}x`, '≥ 10x', speedup >= 10);
}

export async function workersBench() {
  console.log('\n[6] 3 workers vs 1 on PostgreSQL: I/O-bound production job, 200 ms per SMTP reply, concurrency 20 per worker');
  const r = await runWorkersBench();
  results.workers = r;
  row(
    `workers: ${r.addresses} addresses, chunks of ${r.chunkSize}: 1 worker s / 3 workers s`,
    `${fmt(r.oneWorkerMs / 1000, 2)} / ${fmt(r.threeWorkersMs / 1000, 2)}`,
  );
  row('workers: chunks per worker (3 workers)', r.chunksPerWorker.join(' / '));
  row('workers: speed-up', `${fmt(r.speedup, 2)}x`, '≥ 2.5x', r.speedup >= 2.5);
}

export async function claimsBench() {
  const addresses = quick ? 100_000 : 1_000_000;
  console.log(
    `\n[6b] the job queue on PostgreSQL (pg-boss): claim latency, 1 and 4 claimers; a ${addresses.toLocaleString('en-US')}-address sandbox job, 1 and 4 workers`,
  );
  const r = await runClaimsBench(addresses);
  results.claims = r;
  for (const c of r.claims)
    row(`claims: ${c.claimers} claimer(s), p50 / p95 ms, claims+completions/s`, `${fmt(c.p50Ms, 2)} / ${fmt(c.p95Ms, 2)}, ${c.perSecond}`);
  for (const j of r.job) {
    row(
      `claims: ${j.addresses.toLocaleString('en-US')}-address sandbox job, ${j.workers} worker(s), s`,
      fmt(j.wallMs / 1000, 1),
      j.addresses >= 1_000_000 ? '< 15 s' : undefined,
      j.addresses >= 1_000_000 ? j.wallMs < 15_000 : undefined,
    );
    row(`claims: another account's 50-address job during it, ${j.workers} worker(s), s`, fmt(j.otherJobMs / 1000, 2), '< 5 s', j.otherJobMs < 5_000);
  }
}

export async function politenessBench() {
  const addresses = quick ? 600 : 2000;
  console.log(
    `\n[10] one polite sender: ${addresses} addresses (30% Google, 15% Microsoft, 10% Yahoo MX names, the rest small domains; the issue's 100,000 scaled down), 200 ms per SMTP reply, 1 and 3 workers on PostgreSQL`,
  );
  const r = await runPolitenessBench(addresses);
  results.politeness = r;
  row('politeness: server-seen connection ms / pacing', `${r.connectionMs} / ${r.pacing}`);
  for (const run of r.runs) {
    const w = `${run.workers} worker${run.workers > 1 ? 's' : ''}`;
    const targets = [...Object.entries(run.targets), ['small hosts', run.smallHosts] as const];
    const within = targets.every(([, t]) => t.maxConcurrent <= t.limit && t.maxPerMinute <= t.pacePerMinute);
    row(`politeness ${w}: most open at once / limit`, targets.map(([name, t]) => `${name} ${t.maxConcurrent}/${t.limit}`).join(', '));
    row(
      `politeness ${w}: most opened in a minute / pace`,
      targets.map(([name, t]) => `${name} ${t.maxPerMinute}/${t.pacePerMinute}`).join(', '),
      'within limits',
      within,
    );
    row(
      `politeness ${w}: wall s / ideal s`,
      `${fmt(run.wallMs / 1000, 1)} / ${fmt(run.idealMs / 1000, 1)} (${fmt(run.ratio, 2)}x)`,
      '≤ 1.15x',
      run.ratio <= 1.15,
    );
    row(
      `politeness ${w}: worker RSS MB start → end; CPU ms per verification`,
      `${run.rssStartMb.join(', ')} → ${run.rssEndMb.join(', ')}; ${fmt(run.cpuMsPerVerification, 2)}`,
    );
  }
}

export async function egressBench() {
  const addresses = quick ? 500 : 1000;
  console.log(
    `\n[11] one budget per sending IP: ${addresses} addresses over the provider mix (Google's pace binds), 50 ms per SMTP reply, 1, 2 and 3 workers on PostgreSQL, each from its own 127.0.0.10x`,
  );
  const r = await runEgressBench(addresses);
  results.egress = r;
  row('egress: Google addresses / pacing per IP', `${r.google} / ${r.pacing}`);
  for (const run of r.runs) {
    const ips = run.workers > run.ips ? `${run.workers} workers, one budget (before)` : `${run.ips} IP${run.ips > 1 ? 's' : ''}`;
    const { concurrency, perMinute } = EGRESS_PACING.google!;
    const within = run.google.every((g) => g.maxConcurrent <= concurrency && g.maxPerMinute <= perMinute);
    row(
      `egress ${ips}: Google per IP opened / most at once / most in a minute`,
      run.google.map((g) => `${g.ip} ${g.opened}/${g.maxConcurrent}/${g.maxPerMinute}`).join(', '),
      `≤ ${concurrency} at once, ≤ ${perMinute}/min`,
      within,
    );
    row(`egress ${ips}: wall s / ideal s`, `${fmt(run.wallMs / 1000, 1)} / ${fmt(run.idealMs / 1000, 1)} (${fmt(run.ratio, 2)}x)`, '≤ 1.1x', run.ratio <= 1.1);
  }
  const three = r.runs.find((run) => run.ips === 3 && run.workers === 3);
  if (three) row('egress: speed-up of 3 IPs over 1', `${fmt(three.speedup, 2)}x`, '≥ 2.7x', three.speedup >= 2.7);
}
