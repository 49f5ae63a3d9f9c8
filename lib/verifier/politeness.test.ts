import { describe, expect, it, vi } from 'vitest';
import { createLocalPoliteness, forEgress, politeKey } from './politeness';
import { mailboxProviderOf } from './providers';
import { converse } from '../../test/politeness';

describe('createLocalPoliteness', () => {
  it('keeps a target to its concurrency, whoever asks', async () => {
    const politeness = createLocalPoliteness();
    const { maxOpen } = await converse([politeness], 'mx:mx.a.test', { concurrency: 3, perMinute: 0 }, 20, 10);
    expect(maxOpen).toBe(3);
  });

  it('spaces connection starts by the pace: 600 a minute is one per 100 ms', async () => {
    // On the fake clock the schedule itself is checked, not how busy the machine is.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
    try {
      const politeness = createLocalPoliteness();
      const done = converse([politeness], 'mx:mx.b.test', { concurrency: 10, perMinute: 600 }, 8, 1);
      await vi.runAllTimersAsync();
      const { starts } = await done;
      const gaps = starts.slice(1).map((t, i) => t - starts[i]!);
      // at least the pace apart, and no idling beyond a timer tick or two between them
      for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(100);
      for (const gap of gaps) expect(gap).toBeLessThanOrEqual(105);
    } finally {
      vi.useRealTimers();
    }
  });

  it('gives up a queued lease when the signal fires, and the slot stays usable', async () => {
    const politeness = createLocalPoliteness();
    const pacing = { concurrency: 1, perMinute: 0 };
    const first = await politeness.acquire({ key: 'k', pacing });
    await expect(politeness.acquire({ key: 'k', pacing }, AbortSignal.timeout(30))).rejects.toThrow();
    first.release();
    const again = await politeness.acquire({ key: 'k', pacing }, AbortSignal.timeout(30));
    again.release();
  });

  it('holds subjects until their time, the later hold winning', async () => {
    let clock = 0;
    const politeness = createLocalPoliteness(() => clock);
    await politeness.hold('backoff:x', 1000);
    await politeness.hold('backoff:x', 500);
    clock = 400;
    expect(await politeness.heldFor(['backoff:x', 'grey:a@b.test'])).toEqual([600, 0]);
    clock = 1000;
    expect(await politeness.heldFor(['backoff:x'])).toEqual([0]);
  });

  it('keeps one budget per egress: two processes on one egress share it, two egresses have two', async () => {
    const politeness = createLocalPoliteness();
    const pacing = { concurrency: 3, perMinute: 0 };
    const shared = await converse([forEgress(politeness, 'ip:192.0.2.1'), forEgress(politeness, 'ip:192.0.2.1')], 'provider:google', pacing, 10, 10);
    expect(shared.maxOpen).toBe(3);
    const two = await converse([forEgress(politeness, 'ip:192.0.2.1'), forEgress(politeness, 'ip:192.0.2.2')], 'provider:google', pacing, 10, 10);
    expect(two.maxOpen).toBe(6);
  });

  it('keeps holds per egress: a 421 or greylisting met from one IP does not hold another', async () => {
    const politeness = createLocalPoliteness();
    const [a, b] = [forEgress(politeness, 'ip:192.0.2.1'), forEgress(politeness, 'ip:192.0.2.2')];
    await a.hold('grey:x@y.test', 1000);
    expect((await a.heldFor(['grey:x@y.test']))[0]).toBeGreaterThan(900);
    expect(await b.heldFor(['grey:x@y.test'])).toEqual([0]);
  });

  it("keys all of a provider's MX names to one budget, other hosts to their own", () => {
    const google = (mx: string) => politeKey(mx, mailboxProviderOf([mx])?.id);
    expect(google('gmail-smtp-in.l.google.com')).toBe('provider:google');
    expect(google('alt3.aspmx.l.google.com.')).toBe('provider:google');
    expect(google('MX.Small.TEST.')).toBe('mx:mx.small.test');
  });
});
