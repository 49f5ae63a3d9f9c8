import { randomUUID } from 'node:crypto';
import type { Db, PgBoss } from 'pg-boss';
import type { Database } from '../../db/client';
import { dbNow } from '../../db/sql';
import { type ChunkClaim, chunkClaim, leaseChunk, type RunSql } from './ledger';
import { type Delivery, egressQueue, engine, PRODUCTION, parse, SANDBOX } from './pgboss-engine';
import type { ClaimFilter } from './queue';

/**
 * A claim on PostgreSQL (pgboss.ts): fetch a due delivery, take its chunk with the ledger's claim
 * (`leaseChunk`, lib/jobs/queue/ledger.ts) and put the delivery back due when the lease runs out,
 * in one transaction; a delivery whose chunk cannot be taken now is put back for when it can, or
 * dropped when the chunk is done or cancelled.
 */

/** deliveries one claim call looks at before it gives up for this turn (the others are deferred or dropped) */
const DELIVERIES_PER_CLAIM = 32;

type Taken = { claim: ChunkClaim } | 'empty' | 'skipped';

export async function claim(database: Database, workerId: string, leaseMs: number, filter: ClaimFilter): Promise<ChunkClaim | null> {
  const { ensure } = await engine(database);
  const queues: string[] = [];
  if (filter.egress !== undefined && !filter.sandboxOnly) {
    queues.push(egressQueue(filter.egress));
    await ensure(queues[0]!);
  }
  // sandbox and production jobs take turns; each queue is fair across accounts by its priorities
  queues.push(...(filter.sandboxOnly ? [SANDBOX] : turn++ % 2 === 0 ? [SANDBOX, PRODUCTION] : [PRODUCTION, SANDBOX]));
  let looked = 0;
  for (const queue of queues) {
    while (looked++ < DELIVERIES_PER_CLAIM) {
      const taken = await take(database, queue, workerId, leaseMs, filter);
      if (taken === 'empty') break;
      if (taken !== 'skipped') return taken.claim;
    }
  }
  return null;
}
let turn = 0;

/**
 * Fetches one delivery of `queue` and, in the same transaction, claims its chunk or puts it back (or
 * drops it). The statements are all SQL of their own, so they run on a connection of pg-boss's pool
 * (`beginTransaction`): a claim costs half what it does through a Prisma interactive transaction.
 */
async function take(database: Database, queue: string, workerId: string, leaseMs: number, filter: ClaimFilter): Promise<Taken> {
  const { boss } = await engine(database);
  const tx = await boss.getDb().beginTransaction!();
  try {
    const taken = await takeIn(tx.db, boss, queue, workerId, leaseMs, filter);
    await tx.commit();
    return taken;
  } catch (error) {
    await tx.rollback();
    throw error;
  }
}

async function takeIn(db: Db, boss: PgBoss, queue: string, workerId: string, leaseMs: number, filter: ClaimFilter): Promise<Taken> {
  const now = dbNow('postgres');
  const [fetched] = await boss.fetch<Delivery>(queue, { batchSize: 1, db });
  if (!fetched) return 'empty';
  const delivery = parse(fetched.data);
  await boss.deleteJob(queue, fetched.id, { db });
  const chunk = { jobId: delivery.job, no: delivery.no };
  const run: RunSql = async (sql, values) => (await db.executeSql(sql, values)).rows;
  const { egress, pinMs } = filter;
  const lease = await leaseChunk(run, 'postgres', chunk, { workerId, leaseMs, egress, pinMs });
  if (lease) {
    // put back due when this lease runs out: a dead worker's chunk is fetched again then
    const id = randomUUID();
    await boss.insert(queue, [{ id, data: delivery, priority: delivery.p, startAfter: new Date(lease.leaseUntil) }], { db });
    return { claim: chunkClaim(chunk, lease, { userId: delivery.user, sandbox: delivery.sandbox }, { queue, id, priority: delivery.p }) };
  }
  const {
    rows: [row],
  } = (await db.executeSql(`SELECT state, lease_until, not_before, egress, ${now} AS now FROM job_chunks WHERE job_id = $1 AND no = $2`, [
    delivery.job,
    delivery.no,
  ])) as { rows: { state: string; lease_until: string; not_before: string; egress: string | null; now: string }[] };
  if (!row || (row.state !== 'pending' && row.state !== 'leased')) return 'skipped'; // done or cancelled: dropped
  // leased by a live claim, not yet due, or pinned to another egress: back when it may be taken
  const pinnedUntil = row.egress !== null && filter.egress !== undefined && row.egress !== filter.egress ? Number(row.not_before) + (filter.pinMs ?? 0) : 0;
  const at = Math.max(Number(row.now), row.state === 'leased' ? Number(row.lease_until) : 0, Number(row.not_before), pinnedUntil);
  // the same id: the claim holding the chunk deletes it when it completes or hands the chunk back
  await boss.insert(queue, [{ id: fetched.id, data: delivery, priority: delivery.p, startAfter: new Date(at) }], { db });
  return 'skipped';
}
