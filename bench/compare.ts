/**
 * `npm run bench -- --compare`: the figures just measured against the last recorded ones
 * (bench/results/baseline.json, committed with the machine they came from), metric by metric,
 * marking any more than 10% worse. `--save-baseline` records this run's figures in that file (each
 * result keeps the run and machine it came from, so recording one section leaves the others).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';

/** A metric worse than the baseline by more than this is marked. */
export const WORSE_BEYOND = 0.1;

export interface Machine {
  cpus: number;
  cpuModel: string;
  memoryGb: number;
  node: string;
  platform: string;
}
export interface Source {
  git: string;
  started: string;
  quick: boolean;
  machine: Machine;
}
export interface Baseline {
  results: Record<string, unknown>;
  sources: Record<string, Source>;
}

export function thisMachine(): Machine {
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryGb: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
  };
}

/** Every number in the results, by its dotted path; a load run's request count and duration are not metrics (its rate is). */
export function flatten(value: unknown, path = ''): Map<string, number> {
  const out = new Map<string, number>();
  const walk = (v: unknown, p: string, parent: Record<string, unknown> | null) => {
    const leaf = p.slice(p.lastIndexOf('.') + 1);
    if (typeof v === 'number' && Number.isFinite(v)) {
      if (parent && 'rps' in parent && (leaf === 'requests' || leaf === 'seconds')) return;
      out.set(p, v);
    } else if (v && typeof v === 'object' && !Array.isArray(v)) {
      for (const [k, child] of Object.entries(v)) walk(child, p ? `${p}.${k}` : k, v as Record<string, unknown>);
    }
  };
  walk(value, path, null);
  return out;
}

const HIGHER = /(rps|persecond|ratio|throughput|speedup)/i;
const LOWER = /(ms|us|seconds|rss|mb|bytes|lag|errors|retries|failures)$|cpuus|rss|latency/i;

/** Whether a larger value of the metric is better (+1), worse (-1), or not known (0: shown, never marked). */
export function direction(path: string): 1 | -1 | 0 {
  const leaf = path.slice(path.lastIndexOf('.') + 1);
  if (HIGHER.test(leaf)) return 1;
  if (LOWER.test(leaf) || LOWER.test(path)) return -1;
  if (HIGHER.test(path)) return 1;
  return 0;
}

export interface Compared {
  metric: string;
  before: number;
  after: number;
  change: number | null;
  worse: boolean;
  direction: 1 | -1 | 0;
}

/** The metrics present in both, in the order they were measured. `change`: after / before - 1 (null from 0). */
export function compare(before: Record<string, unknown>, after: Record<string, unknown>): Compared[] {
  const old = flatten(before);
  const rows: Compared[] = [];
  for (const [metric, value] of flatten(after)) {
    const was = old.get(metric);
    if (was === undefined) continue;
    const dir = direction(metric);
    const change = was === 0 ? (value === 0 ? 0 : null) : value / was - 1;
    const worse = dir === 0 ? false : change === null ? dir === -1 && value > 0 : dir === 1 ? change < -WORSE_BEYOND : change > WORSE_BEYOND;
    rows.push({ metric, before: was, after: value, change, worse, direction: dir });
  }
  return rows;
}

const num = (n: number) => (Math.abs(n) >= 100 ? n.toFixed(0) : Math.abs(n) >= 1 ? n.toFixed(2) : n.toPrecision(3));

export function formatComparison(rows: Compared[], baselineMachines: Machine[], here: Machine): string {
  const lines: string[] = [];
  const differs = baselineMachines.filter((m) => m.cpus !== here.cpus || m.cpuModel !== here.cpuModel || m.memoryGb !== here.memoryGb);
  if (differs.length)
    lines.push(
      `note: the baseline came from another machine (${differs.map((m) => `${m.cpus} × ${m.cpuModel}, ${m.memoryGb} GB`).join('; ')}); this one is ${here.cpus} × ${here.cpuModel}, ${here.memoryGb} GB`,
    );
  // the same CPU model can serve at half the speed (a VM's host): the bare route's rate, measured in
  // the same run as the figures, says how far the machine itself moved
  const yardstick = rows.find((r) => r.metric === 'bare.rps');
  if (yardstick?.change != null && Math.abs(yardstick.change) > WORSE_BEYOND)
    lines.push(
      `note: this machine serves ${yardstick.change < 0 ? 'slower' : 'faster'} than the baseline's: the bare Next.js GET route at ${num(yardstick.after)} req/s against ${num(yardstick.before)} (${yardstick.change >= 0 ? '+' : ''}${(yardstick.change * 100).toFixed(1)}%): times and rates move with the machine`,
    );
  const table = rows.map((r) => [
    r.metric,
    num(r.before),
    num(r.after),
    r.change === null ? 'from 0' : `${r.change >= 0 ? '+' : ''}${(r.change * 100).toFixed(1)}%`,
    r.direction === 1 ? 'higher' : r.direction === -1 ? 'lower' : '?',
    r.worse ? 'WORSE > 10%' : '',
  ]);
  const head = ['metric', 'before', 'after', 'change', 'better', 'mark'];
  const widths = head.map((h, i) => Math.max(h.length, ...table.map((t) => t[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i >= 1 && i <= 3 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join(' | ')
      .replace(/[\s|]+$/, '');
  lines.push(line(head), widths.map((w) => '-'.repeat(w)).join('-|-'));
  for (const t of table) lines.push(line(t));
  const worse = rows.filter((r) => r.worse);
  lines.push(
    rows.length === 0
      ? 'no metric of this run is in the baseline'
      : `${worse.length} of ${rows.length} metrics more than ${WORSE_BEYOND * 100}% worse than the baseline${worse.length ? `: ${worse.map((r) => r.metric).join(', ')}` : ''}`,
  );
  return lines.join('\n');
}

export function baselinePath(here: string): string {
  return join(here, 'results/baseline.json');
}

export function readBaseline(file: string): Baseline | null {
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Baseline) : null;
}

/** This run's results replace the baseline's under the same top-level names; the rest stay. */
export function recordBaseline(file: string, results: Record<string, unknown>, source: Source): Baseline {
  const old = readBaseline(file) ?? { results: {}, sources: {} };
  const next: Baseline = { results: { ...old.results }, sources: { ...old.sources } };
  for (const [name, value] of Object.entries(results)) {
    next.results[name] = value;
    next.sources[name] = source;
  }
  writeFileSync(file, `${JSON.stringify(next, null, 2)}\n`);
  return next;
}

/** The comparison `--compare` prints: this run's results against the baseline's for the same names. */
export function comparisonReport(baseline: Baseline | null, results: Record<string, unknown>, here = thisMachine()): string {
  if (!baseline) return 'no baseline recorded (bench/results/baseline.json): run with --save-baseline first';
  const names = Object.keys(results).filter((name) => name in baseline.results);
  const before = Object.fromEntries(names.map((name) => [name, baseline.results[name]]));
  const machines = [
    ...new Map(
      names
        .map((n) => baseline.sources[n]?.machine)
        .filter((m): m is Machine => !!m)
        .map((m) => [JSON.stringify(m), m]),
    ).values(),
  ];
  const runs = [
    ...new Set(
      names
        .map((n) => baseline.sources[n])
        .filter(Boolean)
        .map((s) => `${s!.git} at ${s!.started}${s!.quick ? ' (--quick)' : ''}`),
    ),
  ];
  return `baseline: ${runs.join('; ') || 'unknown run'}\n${formatComparison(compare(before, results), machines, here)}`;
}
