import type { Verifier } from '../../verifier/types';

/** How a worker runs (lib/jobs/worker/embedded.ts builds them from the environment): read by the worker's loop and by each chunk's run. */
export interface WorkerOptions {
  concurrency: number;
  leaseMs: number;
  /** How often an idle worker looks for work. */
  pollMs?: number;
  /**
   * How many times a chunk is retried for transient SMTP answers (or a verifier that threw) before
   * they stand as `unknown`. A chunk claimed twice as often (its workers died or lost it each time)
   * fails its job.
   */
  maxAttempts?: number;
  /** When an address is tried again after our side failed: the verifier threw, the database did not answer (default 30 s). */
  errorRetryMs?: number;
  /** How often the worker looks for jobs whose chunks are all done but that were never finished (default 10 s). */
  sweepMs?: number;
  /** How often the worker gives open chunks without a delivery one (ChunkQueue.redeliver; default 30 s, and at start). */
  redeliverMs?: number;
  verifierFor(sandbox: boolean, jobId: string): Verifier;
  /** True while production chunks must wait (egress check failing under EV_EGRESS_POLICY=pause); sandbox chunks still run. */
  productionPaused?(): boolean;
  /**
   * This process's egress (lib/egress/egress.ts): a production chunk handed back for greylisting is
   * marked with it, and chunks marked by another egress are left to that one for `greylistPinMs`
   * past their retry time (then anyone takes them: that egress may be gone).
   */
  egress?: string;
  greylistPinMs?: number;
  /** runs the retention sweep (lib/retention/sweep.ts) beside the chunks, one worker of the database at a time (default true) */
  retention?: boolean;
}
