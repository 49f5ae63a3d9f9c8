import type { Db } from '../../db/client';
import type { ChunkClaim } from './ledger';

/**
 * How workers find the next chunk: the one seam between the job ledger (`job_chunks`: progress,
 * claim tokens, leases, lib/jobs/queue/ledger.ts) and what hands chunks out. PostgreSQL deployments run
 * on pg-boss (pgboss.ts: SKIP LOCKED fetches on the database clock, priorities, `startAfter`);
 * SQLite, one machine, claims from `job_chunks` itself (table.ts). Renewal, the save under the
 * claim, completion and cancel are the ledger's, the same for both. This file is the interface
 * alone; index.ts picks the engine.
 */
export interface ChunkQueue {
  /** Readies the queue (pg-boss: starts it, creating its schema) so a worker's first claim does not wait for it. */
  open(): Promise<void>;
  /** Makes a new job's chunks claimable, in the transaction that writes the job (after its `job_chunks` rows). */
  enqueue(tx: Tx, job: QueuedJob, chunks: number): Promise<void>;
  /** Takes one due chunk under a lease of `leaseMs` (database clock), or null. */
  claim(workerId: string, leaseMs: number, filter?: ClaimFilter): Promise<ChunkClaim | null>;
  /**
   * Hands a claimed chunk back to be taken again `delayMs` from now (greylisting, back-off,
   * shutdown). Nothing happens when the claim no longer holds the chunk.
   */
  release(claim: ChunkClaim, delayMs: number, options?: ReleaseOptions): Promise<void>;
  /** In the transaction that marks the claim's chunk done: what the queue keeps for that claim goes. */
  completed(tx: Tx, claim: ChunkClaim): Promise<void>;
  /**
   * Gives every open chunk of an unfinished job that the queue cannot hand out a way to be handed
   * out (pg-boss: a delivery), so nothing written before the queue existed, or by an older web server
   * during a rolling restart, is stranded. Returns how many it gave one; workers call it at start and
   * periodically (lib/jobs/worker/worker.ts).
   */
  redeliver(): Promise<number>;
}

export type Tx = Pick<Db, '$executeRawUnsafe' | '$queryRawUnsafe'>;

export interface QueuedJob {
  id: string;
  userId: string;
  sandbox: boolean;
}

export interface ClaimFilter {
  /** leave production jobs alone (EV_EGRESS_POLICY=pause while port 25 fails) */
  sandboxOnly?: boolean;
  /**
   * this worker's egress: a chunk handed back for greylisting by another egress is left to that
   * one (greylisting is mostly keyed by the client IP) until `pinMs` after its retry time
   */
  egress?: string;
  pinMs?: number;
}

export interface ReleaseOptions {
  /** false takes back the claim's attempt (a worker shutting down did not try) */
  countAttempt?: boolean;
  /** the egress that saw greylisting in the chunk, where its retry should go out from */
  egress?: string | null;
}
