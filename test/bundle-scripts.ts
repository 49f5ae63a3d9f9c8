import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { bundleName, SCRIPTS } from './scripts';

const ROOT = new URL('..', import.meta.url).pathname;
const CACHE = join(ROOT, 'node_modules/.cache');
const PREFIX = 'ev-test-scripts-';

/**
 * Vitest's global setup: bundles the scripts tests start as processes (test/scripts.ts) into a
 * directory of this run under node_modules/.cache, where their package imports resolve as the
 * scripts' own do, and removes it when the run ends. Vitest calls it for the root configuration and
 * again for each project: the first call bundles, the others find the directory in place.
 */
export default async function bundleScripts(): Promise<() => void> {
  const dir = join(CACHE, `${PREFIX}${process.pid}`);
  if (process.env.EV_TEST_SCRIPTS === dir) return () => {};
  mkdirSync(CACHE, { recursive: true });
  // the directories of runs that were killed before their teardown
  for (const name of readdirSync(CACHE)) {
    const pid = name.startsWith(PREFIX) ? Number(name.slice(PREFIX.length)) : Number.NaN;
    if (!alive(pid)) rmSync(join(CACHE, name), { recursive: true, force: true });
  }
  await build({
    entryPoints: Object.fromEntries(SCRIPTS.map((script) => [bundleName(script).replace(/\.mjs$/, ''), join(ROOT, script)])),
    outdir: dir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    packages: 'external',
    tsconfig: join(ROOT, 'tsconfig.json'),
    logLevel: 'warning',
  });
  process.env.EV_TEST_SCRIPTS = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}

/** Whether `pid` is a running process (NaN: not a run's directory, kept). */
function alive(pid: number): boolean {
  if (Number.isNaN(pid)) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
