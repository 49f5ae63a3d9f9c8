import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startSettings } from '../../bench/start-settings';

const start = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).scripts.start as string;

describe('what `npm start` sets, as the bench and the HTTP suite start the server (bench/server.ts)', () => {
  it('caps the V8 heap and its young generation, and gives glibc two malloc arenas unless the environment says otherwise', () => {
    const { startFlags, startDefaults } = startSettings(start);
    expect(startFlags).toBe('--max-old-space-size=1024 --max-semi-space-size=32');
    expect(startDefaults).toEqual({ NEXT_TELEMETRY_DISABLED: '1', MALLOC_ARENA_MAX: '2' });
  });

  it("reads every default a variable is given in the shell's way and no other assignment", () => {
    // `NAME=$` `{NAME:-value}`, written with a placeholder so as not to read as a template string
    const script = 'A_B=#{A_B:-x y} C=#{D:-1} NODE_OPTIONS="--z #{NODE_OPTIONS:-}" next start -p #{PORT:-3000}'.replaceAll('#', '$');
    expect(startSettings(script)).toEqual({
      startFlags: '--z',
      startDefaults: { A_B: 'x y' },
    });
  });
});
