/**
 * Self time of a `--cpu-prof` profile (.cpuprofile) by function and by file, the largest first: the
 * stages of docs/benchmarks.md "Where a 1M sandbox job's time goes". A function of a bundled file
 * with a source map beside it (`next build`'s .next/server/chunks/*.js.map) is named by its place in
 * the source (`lib/db/sql.ts:104`), not by the bundle's one long line.
 *   npx tsx bench/profile-summary.ts /tmp/prof/CPU.*.cpuprofile [top, default 25]
 */
import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber?: number };
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** A file's place: the project's own path, or the package it belongs to. */
function place(url: string): string {
  if (!url) return '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  const own = /\/(lib|app|bench|\.next)\/(.*)$/.exec(url);
  return own ? `${own[1]}/${own[2]}` : url.replace(/^.*\//, '');
}

const maps = new Map<string, SourceMap | null>();

/** The source map beside a bundled file, once per file; null when it has none. */
function sourceMap(url: string): SourceMap | null {
  if (!url.startsWith('file://') || !url.includes('/.next/')) return null;
  if (!maps.has(url)) {
    const path = `${fileURLToPath(url)}.map`;
    maps.set(url, existsSync(path) ? new SourceMap(JSON.parse(readFileSync(path, 'utf8'))) : null);
  }
  return maps.get(url)!;
}

/** A frame of a bundle as the source file and line its function starts on (and the file's place), or null. */
function mapped(frame: Node['callFrame']): { file: string; at: string } | null {
  const entry = sourceMap(frame.url)?.findEntry(frame.lineNumber, frame.columnNumber ?? 0);
  if (!entry || !('originalSource' in entry) || !entry.originalSource) return null;
  const source = entry.originalSource.replace(/^.*?\/(?=(lib|app|node_modules)\/)/, '');
  const file = place(`/${source}`);
  return { file, at: `${source.startsWith('node_modules/') ? file : source}:${entry.originalLine + 1}` };
}

export function summarise(profile: Profile) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<number, number>();
  for (const [i, id] of profile.samples.entries()) self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  let total = 0;
  for (const [id, us] of self) {
    const frame = byId.get(id)!.callFrame;
    total += us;
    const source = mapped(frame);
    const file = source?.file ?? place(frame.url);
    const fn = source
      ? `${frame.functionName || '(anonymous)'} ${source.at}`
      : `${frame.functionName || '(anonymous)'} ${file}${frame.url ? `:${frame.lineNumber + 1}` : ''}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
    byFile.set(file, (byFile.get(file) ?? 0) + us);
  }
  const top = (m: Map<string, number>, n: number) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n);
  return { totalMs: total / 1000, top, byFunction, byFile };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const file = process.argv[2];
  if (!file) throw new Error('usage: profile-summary.ts <file.cpuprofile> [top]');
  const n = Number(process.argv[3] ?? 25);
  const { totalMs, top, byFunction, byFile } = summarise(JSON.parse(readFileSync(file, 'utf8')) as Profile);
  const pct = (us: number) => `${((us / 1000 / totalMs) * 100).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(7)} ms`;
  console.log(`samples over ${totalMs.toFixed(0)} ms\n\nby file:`);
  for (const [name, us] of top(byFile, n)) console.log(`${pct(us)}  ${name}`);
  console.log('\nby function:');
  for (const [name, us] of top(byFunction, n)) console.log(`${pct(us)}  ${name}`);
}
