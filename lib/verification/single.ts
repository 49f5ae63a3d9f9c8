import type { Database } from '../db/client';
import { recordSingle } from '../history';
import type { Verdict } from '../verifier/types';
import { applySandboxTrigger } from './triggers';
import { verifierFor } from './verifiers';

export interface SingleOutcome {
  verdict: Verdict;
  responseTimeMs: number;
  cached: boolean;
}

/** One address, in the caller's mode, recorded in history. */
export async function verifySingle(database: Database, userId: string, sandbox: boolean, email: string): Promise<SingleOutcome> {
  const started = performance.now();
  if (sandbox) await applySandboxTrigger(email);
  const { verdict } = await verifierFor(sandbox).verify(email);
  await recordSingle(database, userId, verdict, sandbox, false);
  return { verdict, responseTimeMs: Math.round(performance.now() - started), cached: false };
}
