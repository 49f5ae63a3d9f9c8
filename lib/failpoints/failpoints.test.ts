import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

function run(spec: string, script: string) {
  return spawnSync(process.execPath, ['--import', 'tsx', '-e', script], {
    env: { ...process.env, EV_TEST_FAILPOINTS: spec },
    encoding: 'utf8',
  });
}

const SCRIPT = `
import { failpoint } from './lib/failpoints/failpoints.ts';
for (let i = 1; i <= 3; i++) { try { failpoint('demo.step'); console.log('passed', i); } catch (e) { console.log('threw', i, e.message); } }
`;

describe('failpoints', () => {
  it('kills the process with SIGKILL at the named step', () => {
    const out = run('demo.step', SCRIPT);
    expect(out.signal).toBe('SIGKILL');
    expect(out.stdout).toBe('');
  });

  it('acts on the N-th pass only', () => {
    const out = run('other,demo.step=2*throw', SCRIPT);
    expect(out.stdout.trim().split('\n')).toEqual(['passed 1', 'threw 2 failpoint demo.step', 'passed 3']);
  });

  it('does nothing when unset', () => {
    const out = run('', SCRIPT);
    expect(out.status).toBe(0);
    expect(out.stdout.trim().split('\n')).toEqual(['passed 1', 'passed 2', 'passed 3']);
  });
});

describe('pausepoints', () => {
  it('holds an armed step until resumed, once', async () => {
    const { pauseAt, pausepoint } = await import('./failpoints');
    const steps: string[] = [];
    const pause = pauseAt('demo.pause');
    const running = pausepoint('demo.pause').then(() => steps.push('passed'));
    await pause.reached;
    await new Promise((r) => setTimeout(r, 20));
    expect(steps).toEqual([]);
    pause.resume();
    await running;
    expect(steps).toEqual(['passed']);
    // disarmed after one pass
    await pausepoint('demo.pause');
  });
});
