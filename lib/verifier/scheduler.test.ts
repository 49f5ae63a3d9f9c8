import { describe, expect, it } from 'vitest';
import { createScheduler } from './scheduler';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('createScheduler', () => {
  it('never exceeds the per-key and global limits', async () => {
    const scheduler = createScheduler({ perKey: 2, global: 5 });
    const running = new Map<string, number>();
    let total = 0;
    let maxTotal = 0;
    let maxPerKey = 0;
    await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        scheduler.run(`k${i % 4}`, async () => {
          const key = `k${i % 4}`;
          running.set(key, (running.get(key) ?? 0) + 1);
          total++;
          maxTotal = Math.max(maxTotal, total);
          maxPerKey = Math.max(maxPerKey, running.get(key)!);
          await sleep(5);
          running.set(key, running.get(key)! - 1);
          total--;
        }),
      ),
    );
    expect(maxPerKey).toBe(2);
    expect(maxTotal).toBe(5);
  });

  it('keeps the busiest key at its limit so a batch ends in as few rounds as the limits allow', async () => {
    // 40 tasks for "big", 4 for each of 15 small keys; perKey 4, global 8. A round finishes every
    // running task at once. Ideal: "big" needs 40/4 = 10 rounds, all 100 tasks need 100/8 -> 13;
    // with "big" at 4 slots from the first round both fit in 13 (serving the shortest backlog first: 17).
    const scheduler = createScheduler({ perKey: 4, global: 8 });
    const keys = [...Array(40).fill('big'), ...Array.from({ length: 60 }, (_, i) => `small${i % 15}`)];
    let running: (() => void)[] = [];
    let finished = false;
    const all = Promise.all(keys.map((key) => scheduler.run(key, () => new Promise<void>((r) => running.push(r)))));
    void all.then(() => (finished = true));
    const settle = () => new Promise((r) => setImmediate(r));
    let rounds = 0;
    for (await settle(); !finished; await settle()) {
      expect(running.length).toBeLessThanOrEqual(8);
      const round = running;
      running = [];
      for (const finish of round) finish();
      rounds++;
    }
    expect(rounds).toBe(13);
  });

  it('orders keys by their current backlog, counting tasks queued after the key was first seen', async () => {
    const scheduler = createScheduler({ perKey: 1, global: 1 });
    const order: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const task = (key: string, wait?: Promise<void>) =>
      scheduler.run(key, async () => {
        order.push(key);
        await wait;
      });
    const all = [task('first', gate), task('c'), task('b')];
    for (let i = 0; i < 5; i++) all.push(task('b')); // b's backlog grows to 6 while c's stays 1
    release();
    await Promise.all(all);
    expect(order.slice(0, 3)).toEqual(['first', 'b', 'b']);
    expect(order.indexOf('c')).toBeGreaterThan(1);
  });

  it('passes results and errors through', async () => {
    const scheduler = createScheduler({ perKey: 1, global: 1 });
    expect(await scheduler.run('a', async () => 42)).toBe(42);
    await expect(
      scheduler.run('a', async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
  });
});
