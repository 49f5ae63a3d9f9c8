import { AsyncLocalStorage } from 'node:async_hooks';
import { newId } from '../db/ids';

/**
 * The id of the work a request pays for (a job or a single check), which is also its reservation's
 * cause in the ledger. Under an Idempotency-Key it comes from the key's token (lib/api/idempotency.ts),
 * the same for every attempt of the key, so a retry after a crash finds the reservation its first
 * attempt made instead of taking a second one (`reserve` in quota.ts).
 */
const attempts = new AsyncLocalStorage<{ token: string; takeover: boolean }>();

/** Runs a request under its key's token; `takeover` when it took the key over from an attempt that died. */
export function withKeyToken<T>(token: string, takeover: boolean, work: () => Promise<T>): Promise<T> {
  return attempts.run({ token, takeover }, work);
}

/** True when this request took over a key whose first attempt died: its cause may already have a reservation. */
export function retriedKey(): boolean {
  return attempts.getStore()?.takeover ?? false;
}

export function causeId(prefix: 'job' | 'chk'): string {
  const attempt = attempts.getStore();
  return attempt ? `${prefix}_${attempt.token}` : newId(prefix);
}

/** The Idempotency-Key token a cause was named after, if it was: the sweeper frees that key. */
export function tokenOfCause(cause: string): string | null {
  const match = /^(?:job|chk)_(.+)$/.exec(cause);
  return match ? match[1]! : null;
}
