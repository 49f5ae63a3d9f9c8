import { describe, expect, it } from 'vitest';
import { DEFAULT_PROFILES, pacingResolver, parsePacingSpec } from './profiles';

describe('pacing profiles', () => {
  it('parses the compact spec and refuses what it cannot read', () => {
    expect(parsePacingSpec(' google=3/30, mx:MX.Example.com=1/10,default=2/0 ')).toEqual({
      google: { concurrency: 3, perMinute: 30 },
      'mx:mx.example.com': { concurrency: 1, perMinute: 10 },
      default: { concurrency: 2, perMinute: 0 },
    });
    expect(parsePacingSpec('')).toEqual({});
    expect(() => parsePacingSpec('google=3')).toThrow(/target=concurrency\/perMinute/);
    expect(() => parsePacingSpec('google=0/30')).toThrow(/at least 1/);
  });

  it('resolves an override, then the provider default, then the default for unnamed hosts', () => {
    const pacing = pacingResolver(parsePacingSpec('google=3/30,mx:mx.slow.test=1/6'), { concurrency: 2, perMinute: 60 });
    expect(pacing('provider:google')).toEqual({ concurrency: 3, perMinute: 30 });
    expect(pacing('provider:yahoo')).toEqual(DEFAULT_PROFILES.yahoo);
    expect(pacing('mx:mx.slow.test')).toEqual({ concurrency: 1, perMinute: 6 });
    expect(pacing('mx:mx.other.test')).toEqual({ concurrency: 2, perMinute: 60 });
    expect(pacingResolver(parsePacingSpec('default=4/40'), { concurrency: 2, perMinute: 60 })('mx:x')).toEqual({ concurrency: 4, perMinute: 40 });
  });
});
