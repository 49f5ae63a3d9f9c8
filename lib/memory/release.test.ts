import vm from 'node:vm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { collectSoon, RELEASE_MIN_BYTES, releaseNow } from './release';

describe('releaseNow', () => {
  it('detaches a large buffer that owns its memory: it reads as empty from then on', () => {
    const body = Buffer.allocUnsafe(RELEASE_MIN_BYTES * 2).fill(1);
    const table = new Int32Array(RELEASE_MIN_BYTES / 2);
    releaseNow(body);
    releaseNow(table);
    expect(body.length).toBe(0);
    expect(body.buffer.byteLength).toBe(0);
    expect(table.length).toBe(0);
  });

  it('leaves alone a small buffer, a slice of a larger one and a view of part of its memory', () => {
    const small = Buffer.from('{"emails":["a@example.com"]}'); // from Node's shared pool
    const whole = Buffer.alloc(RELEASE_MIN_BYTES * 3, 2);
    const slice = whole.subarray(1, RELEASE_MIN_BYTES * 2);
    releaseNow(small);
    releaseNow(slice);
    expect(small.toString()).toBe('{"emails":["a@example.com"]}');
    expect(slice.length).toBe(RELEASE_MIN_BYTES * 2 - 1);
    expect(whole.length).toBe(RELEASE_MIN_BYTES * 3);
    expect(whole[0]).toBe(2);
  });
});

describe('collectSoon', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('starts one eager (incremental) collection once its delay has passed', () => {
    vi.useFakeTimers();
    const measure = vi.spyOn(vm, 'measureMemory').mockResolvedValue({} as Awaited<ReturnType<typeof vm.measureMemory>>);
    collectSoon(100);
    vi.advanceTimersByTime(99);
    expect(measure).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(measure).toHaveBeenCalledExactlyOnceWith({ mode: 'summary', execution: 'eager' });
  });

  it('does nothing more when the runtime refuses', () => {
    vi.useFakeTimers();
    vi.spyOn(vm, 'measureMemory').mockImplementation(() => {
      throw new Error('not here');
    });
    collectSoon(0);
    expect(() => vi.advanceTimersByTime(1)).not.toThrow();
  });
});
