import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compare, comparisonReport, direction, flatten, readBaseline, recordBaseline, type Machine } from '@/bench/compare';

/** `npm run bench -- --compare` (bench/compare.ts): which way each metric is better, and what is marked. */
const machine: Machine = { cpus: 2, cpuModel: 'AMD EPYC', memoryGb: 8, node: 'v24.21.0', platform: 'linux-x64' };
const load = (rps: number, p99Ms: number) => ({ requests: rps * 10, errors: 0, seconds: 10, rps, p50Ms: p99Ms / 4, p99Ms });

describe('bench --compare', () => {
  it('knows which way each recorded metric is better', () => {
    expect(direction('single.rps')).toBe(1);
    expect(direction('singleToBareRatio')).toBe(1);
    expect(direction('syntaxPerSecond')).toBe(1);
    expect(direction('single.p99Ms')).toBe(-1);
    expect(direction('serverCpuUsPerRequest.single')).toBe(-1);
    expect(direction('bulk.peakRssMb')).toBe(-1);
    expect(direction('single.errors')).toBe(-1);
    expect(direction('bulk.rows')).toBe(0);
  });

  it("leaves a load run's request count and duration out, and arrays", () => {
    expect([...flatten({ single: load(300, 40), sliceRatios: [1, 2] }).keys()]).toEqual(['single.errors', 'single.rps', 'single.p50Ms', 'single.p99Ms']);
  });

  it('marks a metric more than 10% worse either way, and nothing within 10%', () => {
    const rows = compare(
      { single: load(300, 40), singleToBareRatio: 0.6, bulk: { rows: 1000, seconds: 20 } },
      { single: load(265, 44.5), singleToBareRatio: 0.9, bulk: { rows: 5, seconds: 23 }, fresh: { rps: 1 } },
    );
    const marked = Object.fromEntries(rows.map((r) => [r.metric, r.worse]));
    expect(marked).toEqual({
      'single.errors': false,
      'single.rps': true,
      'single.p50Ms': true,
      'single.p99Ms': true,
      singleToBareRatio: false,
      'bulk.rows': false,
      'bulk.seconds': true,
    });
    expect(rows.find((r) => r.metric === 'single.rps')!.change).toBeCloseTo(265 / 300 - 1);
  });

  it('reads the recorded figures, prints before / after, and records a section without losing the others', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ev-baseline-'));
    try {
      const file = join(dir, 'baseline.json');
      expect(comparisonReport(readBaseline(file), { single: load(1, 1) })).toContain('no baseline recorded');
      recordBaseline(file, { single: load(300, 40), bulk: { seconds: 20 } }, { git: 'aaa1111', started: '2026-11-27T23:00:00.000Z', quick: false, machine });
      recordBaseline(file, { single: load(250, 40) }, { git: 'bbb2222', started: '2026-11-27T23:30:00.000Z', quick: false, machine });
      const saved = JSON.parse(readFileSync(file, 'utf8'));
      expect(saved.results.bulk).toEqual({ seconds: 20 });
      expect(saved.sources.bulk.git).toBe('aaa1111');
      expect(saved.results.single.rps).toBe(250);
      const report = comparisonReport(readBaseline(file), { single: load(200, 40) }, machine);
      expect(report).toContain('baseline: bbb2222 at 2026-11-27T23:30:00.000Z');
      expect(report).toMatch(/single\.rps\s+\|\s+250 \|\s+200 \|\s+-20\.0% \| higher \| WORSE > 10%/);
      expect(report).toMatch(/single\.p99Ms\s+\|\s+40\.00 \|\s+40\.00 \|\s+\+0\.0% \| lower\s*\n/);
      expect(report).toContain('1 of 4 metrics more than 10% worse than the baseline: single.rps');
      expect(report).not.toContain('another machine');
      expect(comparisonReport(readBaseline(file), { single: load(250, 40) }, { ...machine, cpus: 8 })).toContain(
        'the baseline came from another machine (2 × AMD EPYC, 8 GB)',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("says when the bare route's rate, measured in the same run, shows the machine itself slower or faster", () => {
    const dir = mkdtempSync(join(tmpdir(), 'ev-baseline-'));
    try {
      const file = join(dir, 'baseline.json');
      recordBaseline(file, { bare: load(3000, 10), single: load(2500, 12) }, { git: 'ccc3333', started: '2026-11-28T20:00:00.000Z', quick: false, machine });
      const slower = comparisonReport(readBaseline(file), { bare: load(1650, 20), single: load(1100, 30) }, machine);
      expect(slower).toContain("note: this machine serves slower than the baseline's: the bare Next.js GET route at 1650 req/s against 3000 (-45.0%)");
      expect(slower).not.toContain('another machine');
      expect(comparisonReport(readBaseline(file), { bare: load(3600, 10) }, machine)).toContain("serves faster than the baseline's");
      expect(comparisonReport(readBaseline(file), { bare: load(2850, 10) }, machine)).not.toContain('serves');
      expect(comparisonReport(readBaseline(file), { single: load(1100, 30) }, machine)).not.toContain('serves');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
