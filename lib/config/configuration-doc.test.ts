import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ENV_VARIABLES, envDefaults } from './env';

/** Read by Next.js, next-auth or the npm scripts rather than by env(). */
const OUTSIDE_ENV = ['PORT', 'NEXTAUTH_SECRET', 'NEXTAUTH_URL', 'AUTH_TRUST_HOST'];

/** The configuration page's table: each row's variable names and its default cell. */
function documented(): { names: string[]; defaults: string }[] {
  const text = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
  return text
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const [names, defaults] = line.split(' | ');
      return { names: [...names!.matchAll(/`([A-Z0-9_]+)`/g)].map((m) => m[1]!), defaults: defaults!.trim() };
    });
}

describe('docs/configuration.md', () => {
  it('names every variable env() reads, and nothing it does not', () => {
    const names = documented().flatMap((row) => row.names);
    expect(ENV_VARIABLES.filter((name) => !names.includes(name))).toEqual([]);
    expect(names.filter((name) => !ENV_VARIABLES.includes(name as never) && !OUTSIDE_ENV.includes(name))).toEqual([]);
  });

  it('gives the defaults env() has', () => {
    const defaults = envDefaults();
    const wrong: string[] = [];
    for (const row of documented()) {
      // a row of several variables gives one default each, comma-separated
      const cells = row.names.length > 1 ? row.defaults.split(/,\s*/) : [row.defaults];
      row.names.forEach((name, i) => {
        // a default may carry a remark in brackets: `0 (off)`
        const cell = (cells[i] ?? '').replace(/`/g, '').replace(/\s*\(.*\)$/, '');
        if (!(name in defaults) || /^(empty|system|generated|from |true when)/.test(cell)) return;
        if (defaults[name] === '' && cell.startsWith('empty')) return;
        if (cell !== defaults[name]) wrong.push(`${name}: documented ${cell}, env.ts ${defaults[name]}`);
      });
    }
    expect(wrong).toEqual([]);
  });
});
