import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';

const pages = [
  'README.md',
  'ARCHITECTURE.md',
  'lib/sdk/README.md',
  ...readdirSync('docs')
    .filter((f) => f.endsWith('.md'))
    .map((f) => join('docs', f)),
];

describe('the documentation', () => {
  it('links only to files that exist', () => {
    const broken: string[] = [];
    for (const page of pages) {
      const text = readFileSync(page, 'utf8');
      for (const [, target] of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        if (!existsSync(join(dirname(page), target!))) broken.push(`${page} -> ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('starts with the two commands a newcomer needs', () => {
    const [title, , install, test] = readFileSync('README.md', 'utf8').split('\n');
    expect(title).toMatch(/^# /);
    expect(install).toMatch(/^\s+npm install && npm run serve\b/);
    expect(test).toMatch(/^\s+bash scripts\/test\.sh\b/);
  });
});

describe('docs/teams.md', () => {
  it('lists every operation with the role it declares (lib/api/operations/)', async () => {
    const { OPERATIONS } = await import('@/lib/api/operations');
    const listed = new Map(
      [...readFileSync('docs/teams.md', 'utf8').matchAll(/^\| `([A-Z]+ \/v1\/[^`]*)` +\| (\w+) +\|/gm)].map(([, op, role]) => [op!, role!]),
    );
    const declared = new Map(OPERATIONS.filter((op) => op.scope !== 'public').map((op) => [`${op.method.toUpperCase()} ${op.path}`, op.role as string]));
    expect(Object.fromEntries(listed)).toEqual(Object.fromEntries(declared));
  });
});
