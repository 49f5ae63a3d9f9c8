import vm from 'node:vm';

/** The smallest view worth releasing early: below it, V8's next collection frees it soon enough. */
export const RELEASE_MIN_BYTES = 1024 * 1024;

/**
 * Gives a large buffer's memory back to the system now instead of at V8's next major collection,
 * which in a busy server can be many seconds later (a million-address submission's body and tables
 * stayed resident well into its job: docs/benchmarks.md, "fifth round"). The view's ArrayBuffer is
 * detached (`ArrayBuffer.prototype.transfer(0)`), so the view reads as empty from then on: call it
 * only on a buffer nothing else will read. A view that does not own its whole ArrayBuffer (a slice,
 * Node's pool of small Buffers) or a small one is left as it is.
 */
export function releaseNow(view: ArrayBufferView): void {
  const buffer = view.buffer;
  if (!(buffer instanceof ArrayBuffer) || view.byteLength < RELEASE_MIN_BYTES) return;
  if (view.byteOffset !== 0 || view.byteLength !== buffer.byteLength) return;
  (buffer as ArrayBuffer & { transfer(length: number): ArrayBuffer }).transfer(0);
}

/**
 * Starts one incremental major collection of V8's heap `afterMs` from now, once the request that
 * asked for it has answered and dropped what it held. After a big submission its list (a million
 * strings) and the parse's leftovers fill the old generation, and V8 would collect them only when
 * the job's own allocations reach its next limit, so the job ran with both in memory
 * (docs/benchmarks.md, "fifth round"). `vm.measureMemory` with `execution: 'eager'` is a way
 * Node offers to start a collection without `--expose-gc` (whose `gc()` is one long pause): V8
 * marks incrementally beside the event loop, as for a collection of its own, and the answer (a
 * size estimate) is not used. Node marks the call experimental (one warning in the log, the first
 * time): should it be gone, nothing is collected early and nothing else changes.
 */
export function collectSoon(afterMs: number): void {
  setTimeout(() => {
    try {
      void vm.measureMemory({ mode: 'summary', execution: 'eager' }).catch(() => undefined);
    } catch {
      // not offered by this Node: V8 collects when it decides to
    }
  }, afterMs).unref();
}
