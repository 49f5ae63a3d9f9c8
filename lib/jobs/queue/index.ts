import type { Database } from '../../db/client';
import { byDialect } from '../../db/sql';
import type { ChunkClaim } from './ledger';
import { pgBossQueue } from './pgboss';
import type { ChunkQueue, ClaimFilter, ReleaseOptions } from './queue';
import { tableQueue } from './table';

export type { ChunkQueue, ClaimFilter, QueuedJob, ReleaseOptions, Tx } from './queue';

/** The queue of this database: pg-boss on PostgreSQL, the `job_chunks` claim on SQLite. */
export function chunkQueue(database: Database): ChunkQueue {
  return byDialect(database.dialect, { postgres: () => pgBossQueue(database), sqlite: () => tableQueue(database) })();
}

/** Takes one chunk under a lease (see ChunkQueue.claim). */
export function claimChunk(database: Database, workerId: string, leaseMs: number, filter: ClaimFilter = {}): Promise<ChunkClaim | null> {
  return chunkQueue(database).claim(workerId, leaseMs, filter);
}

/** Hands a chunk back (see ChunkQueue.release). */
export function releaseChunk(database: Database, claim: ChunkClaim, delayMs: number, options: ReleaseOptions = {}): Promise<void> {
  return chunkQueue(database).release(claim, delayMs, options);
}
