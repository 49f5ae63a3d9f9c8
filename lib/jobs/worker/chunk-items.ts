import { setImmediate as turn } from 'node:timers/promises';
import type { Database } from '../../db/client';
import { selectRows } from '../../db/sql';
import type { ChunkClaim } from '../queue/ledger';

/** a chunk's items SQLite reads at a time: its reads are synchronous, so a sandbox chunk's takes turns with the server */
const ITEMS_PAGE = 2_000;

/**
 * Items of a chunk that have no stored result yet: a retried chunk repeats nothing. A duplicate is
 * never verified: it takes its first occurrence's result (csvPage, processedCount). PostgreSQL reads
 * them in one query; SQLite in pages of ITEMS_PAGE, yielding between them.
 */
export async function unverifiedItems(database: Database, chunk: ChunkClaim): Promise<{ idx: number; email: string }[]> {
  const page = database.bulk ? ITEMS_PAGE : chunk.endIdx - chunk.startIdx + 1;
  const items: { idx: number; email: string }[] = [];
  for (let from = chunk.startIdx; ; ) {
    const rows = await selectRows<{ idx: number; email: string }>(
      database,
      `SELECT i.idx, i.email FROM job_items i WHERE i.job_id = ? AND i.idx >= ? AND i.idx < ?
        AND i.duplicate_of IS NULL AND NOT EXISTS (SELECT 1 FROM verifications v WHERE v.job_id = i.job_id AND v.idx = i.idx) ORDER BY i.idx LIMIT ?`,
      [chunk.jobId, from, chunk.endIdx, page],
    );
    for (const row of rows) items.push({ idx: Number(row.idx), email: row.email });
    if (rows.length < page) return items;
    from = items[items.length - 1]!.idx + 1;
    await turn();
  }
}
