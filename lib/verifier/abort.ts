/** Waiting that an AbortSignal (a verification's deadline) can cut short. */

/** Waits `ms` (nothing when ≤ 0); rejects with the signal's reason when it fires first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * `work`'s outcome, or a rejection as soon as the signal fires (with `aborted()`, by default the
 * signal's reason). The work itself goes on; only the wait for it ends.
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined, aborted = (s: AbortSignal): unknown => s.reason): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(aborted(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(aborted(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** The verification's deadline passed while it waited (verify.ts answers with what it knows). */
export class DeadlinePassed extends Error {}

/** Waits for `work` until the verification's deadline, which ends the wait as DeadlinePassed. */
export function untilDeadline<T>(work: Promise<T>, signal?: AbortSignal): Promise<T> {
  return untilAborted(work, signal, () => new DeadlinePassed());
}
