import type { Database } from '../../db/client';
import { type ItemColumns, unansweredItems } from '../../db/queries/jobs';
import type { ChunkClaim } from '../queue/ledger';

/**
 * Items of a chunk that have no stored result yet: a retried chunk repeats nothing. A duplicate is
 * never verified: it takes its first occurrence's result (csvPage, processedCount). How they are
 * read on each database: lib/db/queries/jobs.ts.
 */
export function unverifiedItems(database: Database, chunk: ChunkClaim): Promise<ItemColumns> {
  return unansweredItems(database, chunk.jobId, chunk.startIdx, chunk.endIdx);
}
