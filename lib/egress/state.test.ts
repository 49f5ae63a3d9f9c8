import { describe, expect, it } from 'vitest';
import type { CheckStatus, EgressReport } from './check';
import { EgressMonitor } from './state';

function report(port25: CheckStatus, rdns: CheckStatus = 'pass'): EgressReport {
  const status = [port25, rdns].includes('fail') ? 'fail' : [port25, rdns].includes('warn') ? 'warn' : 'pass';
  return {
    status,
    checkedAt: new Date(0).toISOString(),
    egress: 'default',
    sourceIp: null,
    egressIp: '192.0.2.1',
    heloName: 'mx.example.com',
    checks: [
      { name: 'port25', status: port25, message: `port25 ${port25}`, remedy: null },
      { name: 'rdns', status: rdns, message: `rdns ${rdns}`, remedy: null },
    ],
  };
}

function monitor(results: EgressReport[], pauses = true) {
  let clock = 1_000_000;
  let runs = 0;
  const lines: string[] = [];
  const m = new EgressMonitor({
    run: async () => results[Math.min(runs++, results.length - 1)]!,
    intervalMs: 600_000,
    failingIntervalMs: 60_000,
    minRefreshMs: 10_000,
    pauses: () => pauses,
    now: () => clock,
    log: (line) => lines.push(line),
  });
  return { m, lines, runs: () => runs, advance: (ms: number) => (clock += ms) };
}

describe('EgressMonitor', () => {
  it('checks once for concurrent callers and serves the cached report until it is stale', async () => {
    const t = monitor([report('pass'), report('pass')]);
    const [a, b] = await Promise.all([t.m.get(), t.m.get()]);
    expect(a).toBe(b);
    expect(t.runs()).toBe(1);
    t.advance(599_000);
    await t.m.get();
    expect(t.runs()).toBe(1);
    t.advance(1000);
    await t.m.get();
    expect(t.runs()).toBe(2);
  });

  it('lets a forced refresh through at most every minRefreshMs', async () => {
    const t = monitor([report('pass')]);
    await t.m.get();
    await t.m.get({ refresh: true });
    expect(t.runs()).toBe(1);
    t.advance(10_000);
    await t.m.get({ refresh: true });
    expect(t.runs()).toBe(2);
  });

  it('checks a failing port 25 again sooner, in the background', async () => {
    const t = monitor([report('fail'), report('pass')]);
    t.m.touch();
    expect(t.m.current()).toBeNull();
    await t.m.get();
    expect(t.m.current()!.status).toBe('fail');
    t.advance(59_000);
    t.m.touch();
    expect(t.runs()).toBe(1);
    t.advance(1000);
    t.m.touch();
    await t.m.get();
    expect(t.runs()).toBe(2);
    expect(t.m.current()!.status).toBe('pass');
  });

  it('logs once per change of state, with the pause and the resumption', async () => {
    const t = monitor([report('fail'), report('fail'), report('pass', 'warn'), report('pass', 'warn'), report('pass')]);
    for (let i = 0; i < 5; i++) {
      await t.m.get({ refresh: true });
      t.advance(600_000);
    }
    expect(t.lines).toEqual([
      '[egress] fail: port25 fail: port25 fail',
      '[egress] production jobs are paused until outbound port 25 works (EV_EGRESS_POLICY=pause); sandbox jobs run',
      '[egress] warn: rdns warn: rdns warn',
      '[egress] production jobs resume',
      '[egress] all checks pass again',
    ]);
  });

  it('says nothing about pausing under the warn policy, and nothing at all for a first pass', async () => {
    const warn = monitor([report('fail')], false);
    await warn.m.get();
    expect(warn.lines).toEqual(['[egress] fail: port25 fail: port25 fail']);
    const quiet = monitor([report('pass')]);
    await quiet.m.get();
    expect(quiet.lines).toEqual([]);
  });
});
