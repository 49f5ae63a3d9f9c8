import { fromPrisma, type JobWithMetadata } from 'pg-boss';
import type { Database } from '../../db/client';
import { q } from '../../db/sql';
import { releaseRow, SERVED_OF_ACCOUNT } from './ledger';
import { claim } from './pgboss-claim';
import { type Delivery, egressQueue, engine, modeQueue, parse, TX } from './pgboss-engine';
import type { ChunkQueue, QueuedJob, Tx } from './queue';
import { OPEN_SQL } from '../states';

/**
 * PostgreSQL's queue: pg-boss (https://github.com/timgit/pg-boss, docs/dependencies.md). Each open
 * chunk has a pg-boss job, its *delivery*: `{ job, no, user, sandbox, p }` in the queue of its mode
 * (`ev-chunks-sandbox`, `ev-chunks-production`), or, handed back for greylisting, in the queue of the
 * egress that saw it (`ev-chunks-egress-<egress>`) with a fallback delivery in its mode's queue.
 * `job_chunks` stays the ledger and the fence: progress, claim token, lease, attempts, cancel.
 *
 * A claim is one transaction: fetch a due delivery (SKIP LOCKED, highest priority first, the database
 * clock), take the chunk with the ledger's conditional UPDATE (`leaseChunk`, ledger.ts; pgboss-claim.ts),
 * and put the delivery back due when the new lease runs out (delete + insert, a fresh id). The delivery's availability time IS the lease:
 * if the worker dies, the chunk is fetched again once `EV_LEASE_MS` has passed, whatever the lease
 * (pg-boss's own heartbeat has a 10 s floor; ours is the ledger's renewal). Renewal touches only the
 * ledger; a delivery fetched while its chunk is still leased by a live claim (renewed), not yet due,
 * or pinned to another egress is put back for that time, never lost. A delivery whose chunk is
 * done or cancelled, or whose job is gone, is deleted: a cancel leaves its job's deliveries to be
 * dropped by whoever fetches them. Completion deletes the claim's delivery in its own transaction.
 * Every transaction that touches both takes the delivery first, then the chunk (a claim fetches
 * before it updates; completion and hand-back delete before they update), so a lease running out
 * during a finish makes one wait for the other, never a deadlock.
 *
 * Fairness: pg-boss fetches by priority, then age. A delivery's priority is minus its rank in its
 * account: the chunks the account's unfinished jobs have had served (`SERVED_OF_ACCOUNT`), then its position among the
 * account's queued deliveries ordered by chunk number (so its jobs take turns). A new job re-ranks
 * the account's queued deliveries in its queue (`update`) when there are at most RERANK_LIMIT of
 * them; past that its chunks go after them. pg-boss's group concurrency limits how many jobs of a
 * group run at once; it does not order groups fairly, so it is not used.
 */

/** an account's queued deliveries that a new job of it re-ranks (above this, it queues behind them) */
const RERANK_LIMIT = 2_000;

export function pgBossQueue(database: Database): ChunkQueue {
  return {
    open: async () => {
      await engine(database);
    },
    enqueue: (tx, job, chunks) => enqueue(database, tx, job, chunks),
    claim: (workerId, leaseMs, filter = {}) => claim(database, workerId, leaseMs, filter),
    release: async (chunk, delayMs, { countAttempt = true, egress = null } = {}) => {
      const { boss, ensure } = await engine(database);
      const pinned = egress ? egressQueue(egress) : null;
      if (pinned) await ensure(pinned);
      await database.prisma.$transaction(async (tx) => {
        // the delivery before the chunk: the one lock order (completeChunkAndFinish, lib/jobs/worker/lifecycle.ts)
        const db = fromPrisma(tx);
        if (chunk.delivery) await boss.deleteJob(chunk.delivery.queue, chunk.delivery.id, { db });
        const notBefore = await releaseRow(tx, database.dialect, chunk, delayMs, countAttempt, egress);
        if (notBefore === null) return;
        const p = chunk.delivery?.priority ?? -chunk.no;
        const delivery = {
          data: { job: chunk.jobId, no: chunk.no, user: chunk.userId, sandbox: chunk.sandbox, p },
          priority: p,
          startAfter: new Date(notBefore),
        };
        // the egress that saw greylisting asks first; the fallback in the mode's queue is put back
        // by other egresses' workers until the pin runs out (lib/jobs/queue/queue.ts ClaimFilter)
        if (pinned) await boss.insert(pinned, [delivery], { db });
        await boss.insert(modeQueue(chunk.sandbox), [delivery], { db });
      }, TX);
    },
    completed: async (tx, chunk) => {
      if (!chunk.delivery) return;
      const { boss } = await engine(database);
      await boss.deleteJob(chunk.delivery.queue, chunk.delivery.id, { db: fromPrisma(tx) });
    },
    redeliver: () => redeliver(database),
  };
}

/** open chunks given a delivery per transaction of `redeliver` */
const REDELIVER_BATCH = 5_000;

/**
 * Upgrades lose nothing (docs/operations.md): a chunk of an unfinished job that is open (pending, or
 * leased) and has no delivery in any of our queues gets one in its mode's queue, due when it may be
 * claimed (its retry time, or the end of its lease). Such chunks were written before the move to
 * pg-boss, or by a web server of that release during a rolling restart; nothing this release writes
 * is ever without one, since a chunk and its delivery change in one transaction (enqueue, claim,
 * hand-back, completion). The transaction takes an advisory lock, or skips the turn when another
 * worker holds it, so two workers give a chunk one delivery, not two, and neither waits. A delivery given to a chunk an old worker holds is put back
 * until its lease ends, and dropped once the chunk is done (`takeIn`).
 */
async function redeliver(database: Database): Promise<number> {
  const { boss } = await engine(database);
  let given = 0;
  for (;;) {
    const batch = await database.prisma.$transaction(async (tx) => {
      // one worker at a time gives them; another finds the lock taken and goes on claiming
      const [{ locked }] = await tx.$queryRawUnsafe<{ locked: boolean }[]>('SELECT pg_try_advisory_xact_lock(7265437) AS locked');
      if (!locked) return 0;
      await tx.$executeRawUnsafe(`SET LOCAL work_mem = '64MB'`);
      const orphans = await tx.$queryRawUnsafe<
        { job_id: string; no: number; state: string; lease_until: bigint; not_before: bigint; user_id: string; sandbox: boolean }[]
      >(
        // NOT IN: the deliveries are read once into a hash, 10-20 ms for 2,000 open chunks (a NOT
        // EXISTS became a nested loop over them for every chunk on tables not yet analyzed: 0.6 s);
        // work_mem above lets the hash hold about a million deliveries
        `SELECT c.job_id, c.no, c.state, c.lease_until, c.not_before, j.user_id, j.sandbox FROM job_chunks c JOIN jobs j ON j.id = c.job_id
          WHERE j.status IN (${OPEN_SQL}) AND c.state IN ('pending', 'leased')
            AND (c.job_id, c.no) NOT IN (SELECT d.data->>'job', (d.data->>'no')::int FROM pgboss.job d WHERE d.name LIKE 'ev-chunks-%')
          ORDER BY c.job_id, c.no LIMIT ${REDELIVER_BATCH}`,
      );
      const byQueue = new Map<string, { data: Delivery; priority: number; startAfter: Date }[]>();
      for (const row of orphans) {
        const p = -Number(row.no);
        const due = row.state === 'leased' ? Number(row.lease_until) : Number(row.not_before);
        const queue = modeQueue(row.sandbox);
        const list = byQueue.get(queue) ?? [];
        list.push({ data: { job: row.job_id, no: Number(row.no), user: row.user_id, sandbox: row.sandbox, p }, priority: p, startAfter: new Date(due) });
        byQueue.set(queue, list);
      }
      const db = fromPrisma(tx);
      for (const [queue, deliveries] of byQueue) await boss.insert(queue, deliveries, { db });
      return orphans.length;
    }, TX);
    given += batch;
    if (batch < REDELIVER_BATCH) break;
  }
  if (given > 0)
    console.log(`[queue] gave ${given} open chunk${given === 1 ? '' : 's'} without a delivery one (written before pg-boss, or by an older server)`);
  return given;
}

async function enqueue(database: Database, tx: Tx, job: QueuedJob, chunks: number): Promise<void> {
  const { boss } = await engine(database);
  const db = fromPrisma(tx);
  const queue = modeQueue(job.sandbox);
  const [row] = await tx.$queryRawUnsafe<{ n: number | bigint }[]>(q('postgres', SERVED_OF_ACCOUNT), job.userId);
  const served = Number(row?.n ?? 0);
  const queued = await boss.findJobs<Delivery>(queue, { data: { user: job.userId }, queued: true, limit: RERANK_LIMIT + 1, db });
  const fresh = Array.from({ length: chunks }, (_, no) => ({ no, created: Infinity, job: job.id, id: null as string | null, priority: 0 }));
  let ranked = fresh;
  let offset = served;
  if (queued.length > RERANK_LIMIT) {
    offset += queued.length;
  } else {
    const others = queued.map((d: JobWithMetadata<Delivery>) => ({
      no: parse(d.data).no,
      created: new Date(d.createdOn).getTime(),
      job: parse(d.data).job,
      id: d.id as string | null,
      priority: d.priority,
    }));
    ranked = [...others, ...fresh].sort((a, b) => a.no - b.no || a.created - b.created || (a.job < b.job ? -1 : a.job > b.job ? 1 : 0));
  }
  const dataOf = new Map(queued.map((d) => [d.id, parse(d.data)]));
  const inserts = [];
  for (const [rank, entry] of ranked.entries()) {
    const p = -(offset + rank);
    if (entry.id === null) {
      inserts.push({ data: { job: job.id, no: entry.no, user: job.userId, sandbox: job.sandbox, p } satisfies Delivery, priority: p });
    } else if (entry.priority !== p) {
      await boss.update(queue, { ...dataOf.get(entry.id)!, p }, { id: entry.id, priority: p, db });
    }
  }
  for (let from = 0; from < inserts.length; from += 5_000) await boss.insert(queue, inserts.slice(from, from + 5_000), { db });
}
