import { afterEach, describe, expect, it, vi } from 'vitest';
import { ENV_RECHECK_MS, env } from './env';

/**
 * env() parses the environment once per set of values: a test's change to process.env is seen by the
 * next call; a production server compares its environment at most once every ENV_RECHECK_MS.
 */
describe('env()', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  it('sees a change to process.env at the next call outside production', () => {
    vi.stubEnv('EV_CHUNK_SIZE', '123');
    const first = env();
    expect(first.EV_CHUNK_SIZE).toBe(123);
    expect(env()).toBe(first);
    vi.stubEnv('EV_CHUNK_SIZE', '124');
    expect(env().EV_CHUNK_SIZE).toBe(124);
  });

  it('in production, sees a change within ENV_RECHECK_MS, and the same values keep the same object', () => {
    let now = 1_000_000;
    vi.spyOn(performance, 'now').mockImplementation(() => now);
    vi.stubEnv('EV_CHUNK_SIZE', '200');
    const before = env();
    vi.stubEnv('NODE_ENV', 'production');
    expect(env()).toBe(before);
    vi.stubEnv('EV_CHUNK_SIZE', '201');
    now += ENV_RECHECK_MS - 1;
    expect(env().EV_CHUNK_SIZE).toBe(200);
    now += 1;
    expect(env().EV_CHUNK_SIZE).toBe(201);
    const after = env();
    now += ENV_RECHECK_MS;
    expect(env()).toBe(after);
  });
});
