import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { bundleName, SCRIPTS } from './scripts';

const ROOT = new URL('..', import.meta.url).pathname;

/**
 * Vitest's global setup: bundles the scripts tests start as processes (test/scripts.ts) into a
 * directory of this run under node_modules/.cache, where their package imports resolve as the
 * scripts' own do, and removes it when the run ends.
 */
export default async function bundleScripts(): Promise<() => void> {
  const cache = join(ROOT, 'node_modules/.cache');
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(join(cache, 'ev-test-scripts-'));
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
