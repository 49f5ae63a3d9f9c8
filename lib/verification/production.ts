import type { Verifier } from '../verifier/types';

/** Placeholder until the real verifier core is wired (issue 3). */
export function productionVerifier(): Verifier {
  throw new Error('production verification is not wired yet');
}
