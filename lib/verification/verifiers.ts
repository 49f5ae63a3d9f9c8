import { sandboxVerifier } from '../verifier/sandbox';
import type { Verifier } from '../verifier/types';
import { productionVerifier } from './production';

/** The seam between modes: everything above it (routes, jobs, history) is the same for both. */
export function verifierFor(sandbox: boolean): Verifier {
  return sandbox ? sandboxVerifier : productionVerifier();
}
