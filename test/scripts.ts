import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The TypeScript scripts tests start as processes of their own (worker, create-key, erase, …). Under
 * tsx, a process spends seconds resolving and loading its few hundred modules through tsx's loader
 * before it runs a line; test/bundle-scripts.ts (vitest's global setup) bundles each script once per
 * run with esbuild, the compiler tsx itself uses (the repository's code bundled, packages left as
 * imports), and names the directory in EV_TEST_SCRIPTS. Outside vitest, or for a script it did not
 * bundle, the script runs under tsx as `npm run worker` runs it.
 */
export const SCRIPTS = ['scripts/worker.ts', 'scripts/create-key.ts', 'scripts/grant-credits.ts', 'scripts/erase.ts', 'test/api/instance.ts'];

/** The node arguments that run `script` (a path from the repository's root). */
export function scriptArgs(script: string): string[] {
  const bundle = process.env.EV_TEST_SCRIPTS ? join(process.env.EV_TEST_SCRIPTS, bundleName(script)) : null;
  return bundle && existsSync(bundle) ? [bundle] : ['--import', 'tsx', script];
}

export function bundleName(script: string): string {
  return `${script.replace(/\.ts$/, '').replace(/\//g, '-')}.mjs`;
}
