import { setImmediate as turn } from 'node:timers/promises';

/**
 * Per-request loops over a list (up to EV_MAX_BULK_EMAILS addresses) run in slices of at most
 * SLICE_MS, handing the event loop back between slices (setImmediate: after pending I/O), so one
 * account's million-row list does not hold every other request of the server (issue 20; the figures
 * are in bench/status-cost.ts). The work still runs once; it only takes turns.
 */
export const SLICE_MS = 5;

/**
 * Calls `step(i)` for i = 0 … count-1, yielding every SLICE_MS. Reading the clock costs about as
 * much as a cheap step, so it is read every `clockEvery` steps (a power of two; 1 for big steps).
 */
export async function forEachSliced(count: number, step: (i: number) => void, clockEvery = 64): Promise<void> {
  const mask = clockEvery - 1;
  let sliceStart = performance.now();
  for (let i = 0; i < count; i++) {
    step(i);
    if ((i & mask) === mask && performance.now() - sliceStart >= SLICE_MS) {
      await turn();
      sliceStart = performance.now();
    }
  }
}
