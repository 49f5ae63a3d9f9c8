import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * The house's own rules (ARCHITECTURE.md): a source file outside the tests holds at most 250 lines,
 * and ARCHITECTURE.md reads in short paragraphs that name only files that exist. Import circles
 * and the rooms' import rules are `npm run lint`'s (.dependency-cruiser.cjs).
 */
const MAX_LINES = 250;
const MAX_WORDS = 150;

const tracked = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], { encoding: 'utf8' }).split('\n');
const isSource = (path: string) =>
  /\.(ts|tsx|mjs|cjs|js)$/.test(path) &&
  !/(^|\/)test\/|\.test\.ts$|^e2e\/|^lib\/db\/generated\/|^lib\/widget\/widget\.js$|^public\/|\.d\.ts$/.test(path) &&
  existsSync(path);

describe('the house', () => {
  it(`keeps every source file outside the tests to ${MAX_LINES} lines`, () => {
    const long = tracked
      .filter(isSource)
      .map((path) => ({ path, lines: readFileSync(path, 'utf8').split('\n').length - 1 }))
      .filter(({ lines }) => lines > MAX_LINES);
    expect(long).toEqual([]);
  });

  it(`writes ARCHITECTURE.md in paragraphs of at most ${MAX_WORDS} words that name only files that exist`, () => {
    const text = readFileSync('ARCHITECTURE.md', 'utf8').replace(/```[\s\S]*?```/g, '');
    const paragraphs = text.split(/\n\s*\n/).filter((p) => !/^\s*(#|\|)/.test(p));
    const wordy = paragraphs.map((p) => ({ start: p.trim().slice(0, 60), words: p.split(/\s+/).filter(Boolean).length })).filter((p) => p.words > MAX_WORDS);
    expect(wordy).toEqual([]);
    const named = [...readFileSync('ARCHITECTURE.md', 'utf8').matchAll(/`((?:app|lib|components|prisma|scripts|bench|test|e2e|docs)\/[\w./()[\]-]+?)`/g)].map(
      (m) => m[1]!,
    );
    expect(named.filter((path) => !existsSync(path.replace(/\/$/, '')))).toEqual([]);
  });
});
