import { env } from '../config/env';
import { sandboxVerifier } from '../verifier/sandbox';
import type { Verifier } from '../verifier/types';
import { jobVerifier, productionVerifier } from './production';

/**
 * The seam between modes: everything above it (routes, jobs, history, webhooks) is the same for
 * both. A job id asks for that job's own verifier (catch-all answers reused within the job).
 */
export function verifierFor(sandbox: boolean, jobId?: string): Verifier {
  if (sandbox || env().EV_PRODUCTION_ENGINE === 'sandbox') return sandboxVerifier;
  return jobId ? jobVerifier(jobId) : productionVerifier();
}
