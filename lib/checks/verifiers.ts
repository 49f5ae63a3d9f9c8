import { env } from '../config/env';
import { countedVerifier } from '../metrics/observe';
import { sandboxVerifier } from '../verifier/sandbox';
import type { Verifier } from '../verifier/types';
import { jobVerifier, productionVerifier } from './production';

/**
 * The seam between modes: everything above it (routes, jobs, history, webhooks) is the same for
 * both. A job id asks for that job's own verifier (catch-all answers reused within the job).
 */
export function verifierFor(sandbox: boolean, jobId?: string): Verifier {
  const mode = sandbox ? 'sandbox' : 'production';
  if (sandbox || env().EV_PRODUCTION_ENGINE === 'sandbox') return countedVerifier(sandboxVerifier, mode);
  return countedVerifier(jobId ? jobVerifier(jobId) : productionVerifier(), mode);
}
