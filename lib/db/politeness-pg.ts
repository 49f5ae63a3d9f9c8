import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { sleep, untilAborted } from '../verifier/abort';
import { paceInterval, type Politeness } from '../verifier/politeness';

/**
 * SMTP politeness shared by every process on one PostgreSQL database, so N workers are one polite
 * sender (docs/operations.md). Times are the database's clock (one clock for the fleet):
 * - concurrency: a lease is a row `(key, slot)` of `smtp_leases`, slot < the target's concurrency,
 *   taken by an INSERT that only wins on a free or expired slot. A process renews the leases it
 *   holds every `leaseMs / 4` (one UPDATE for all of them), so a killed worker's leases expire
 *   `leaseMs` after its last renewal, whatever its conversations' timeouts: the workers that take
 *   its place on the same egress get its budget back within seconds.
 *   A waiter asks again every few tens of milliseconds (a conversation lasts about a second).
 * - pace: one `smtp_pace` row per target holds the next free start (GCRA without burst), moved on
 *   by one atomic upsert; the caller waits until its start, holding its lease.
 * - back-offs and greylist retry times: `smtp_holds` rows, the later time winning.
 * The tables are UNLOGGED and pruned at most once a minute per process.
 */
export interface PgPolitenessOptions {
  url: string;
  /** how long a lease outlives its holder's last renewal */
  leaseMs: number;
  /** pool size of this process (default 6) */
  connections?: number;
}

const NOW_MS = `(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::bigint`;

// The lowest free slot (never taken, or expired). Two processes may pick the same one: the loser
// conflicts, its DO UPDATE finds a live lease and returns no row, and it tries again.
const TAKE_LEASE = `
  INSERT INTO "smtp_leases" ("key", "slot", "holder", "expires_at")
  SELECT $1, s, $2, ${NOW_MS} + $3 FROM generate_series(0, $4::int - 1) AS s
  WHERE NOT EXISTS (SELECT 1 FROM "smtp_leases" l WHERE l."key" = $1 AND l."slot" = s AND l."expires_at" > ${NOW_MS})
  ORDER BY s LIMIT 1
  ON CONFLICT ("key", "slot") DO UPDATE SET "holder" = excluded."holder", "expires_at" = excluded."expires_at"
    WHERE "smtp_leases"."expires_at" <= ${NOW_MS}
  RETURNING "slot"`;
const FREE_LEASE = `DELETE FROM "smtp_leases" WHERE "key" = $1 AND "slot" = $2 AND "holder" = $3`;
// the leases of this process (holders `<process>:<lease>`), kept from expiring while it lives
const RENEW_LEASES = `UPDATE "smtp_leases" SET "expires_at" = GREATEST("expires_at", ${NOW_MS} + $2) WHERE "holder" LIKE $1`;
const RESERVE_START = `
  INSERT INTO "smtp_pace" ("key", "next_at") VALUES ($1, ${NOW_MS} + $2)
  ON CONFLICT ("key") DO UPDATE SET "next_at" = GREATEST("smtp_pace"."next_at", ${NOW_MS}) + $2
  RETURNING "next_at" - $2 - ${NOW_MS} AS "wait_ms"`;
const HOLD = `
  INSERT INTO "smtp_holds" ("subject", "until") VALUES ($1, ${NOW_MS} + $2)
  ON CONFLICT ("subject") DO UPDATE SET "until" = GREATEST("smtp_holds"."until", excluded."until")`;
const HELD = `SELECT "subject", "until" - ${NOW_MS} AS "left_ms" FROM "smtp_holds" WHERE "subject" = ANY($1) AND "until" > ${NOW_MS}`;
const PRUNE = [
  `DELETE FROM "smtp_holds" WHERE "until" < ${NOW_MS}`,
  `DELETE FROM "smtp_pace" WHERE "next_at" < ${NOW_MS} - 60000`,
  `DELETE FROM "smtp_leases" WHERE "expires_at" < ${NOW_MS}`,
];
const PRUNE_EVERY_MS = 60_000;

export function createPgPoliteness(options: PgPolitenessOptions): Politeness & { end(): Promise<void> } {
  const pool = new pg.Pool({ connectionString: options.url, max: options.connections ?? 6 });
  pool.on('error', (error) => console.error('[politeness] postgres', error.message));
  let prunedAt = Date.now();
  const processId = randomBytes(6).toString('base64url');
  let leasesHeld = 0;
  let renewer: NodeJS.Timeout | undefined;
  const renewing = (change: 1 | -1) => {
    leasesHeld += change;
    if (leasesHeld > 0 && !renewer) {
      renewer = setInterval(
        () => {
          pool.query(RENEW_LEASES, [`${processId}:%`, options.leaseMs]).catch((error: unknown) => console.error('[politeness] renewing leases failed', error));
        },
        Math.max(100, options.leaseMs / 4),
      );
      renewer.unref();
    } else if (leasesHeld === 0 && renewer) {
      clearInterval(renewer);
      renewer = undefined;
    }
  };
  const queues = new Map<string, Promise<void>>();
  const wakeUp = new Map<string, () => void>();

  /** Waits `ms` before asking again, or less when this process frees a lease of the target. */
  const nap = (key: string, ms: number, signal?: AbortSignal) =>
    new Promise<void>((resolve, reject) => {
      const finish = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        if (wakeUp.get(key) === finish) wakeUp.delete(key);
      };
      const timer = setTimeout(() => {
        finish();
        resolve();
      }, ms);
      const onAbort = () => {
        finish();
        reject(signal!.reason);
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      wakeUp.set(key, () => {
        finish();
        resolve();
      });
    });

  const query = async <R extends pg.QueryResultRow>(sql: string, values: unknown[]) => {
    if (Date.now() - prunedAt > PRUNE_EVERY_MS) {
      prunedAt = Date.now();
      Promise.all(PRUNE.map((statement) => pool.query(statement))).catch((error: unknown) => console.error('[politeness] pruning failed', error));
    }
    return (await pool.query<R>(sql, values)).rows;
  };

  return {
    async acquire({ key, pacing }, signal) {
      const holder = `${processId}:${randomBytes(9).toString('base64url')}`;
      const concurrency = Math.max(1, pacing.concurrency);
      const interval = paceInterval(pacing);
      // a lease also covers the wait for its start: at most `concurrency` starts are reserved ahead
      const ttl = options.leaseMs + concurrency * interval;
      // One waiter per target and process asks the database; the others queue behind it here, so
      // a busy target costs each process one query per poll, not one per waiting conversation.
      const ahead = queues.get(key) ?? Promise.resolve();
      let done!: () => void;
      const turn = ahead.then(() => new Promise<void>((resolve) => (done = resolve)));
      queues.set(key, turn);
      let slot: number | undefined;
      try {
        await untilAborted(ahead, signal);
        for (;;) {
          const rows = await query<{ slot: number }>(TAKE_LEASE, [key, holder, ttl, concurrency]);
          if (rows.length > 0) {
            slot = rows[0]!.slot;
            renewing(1);
            break;
          }
          await nap(key, 20 + Math.random() * 30, signal);
        }
      } finally {
        ahead.then(() => done());
        if (queues.get(key) === turn) turn.then(() => queues.get(key) === turn && queues.delete(key));
      }
      const free = () => {
        renewing(-1);
        void query(FREE_LEASE, [key, slot, holder]).then(
          () => wakeUp.get(key)?.(), // a lease freed here: this process's next waiter asks at once
          (error: unknown) => console.error('[politeness] freeing a lease failed (it expires)', error),
        );
      };
      try {
        if (interval > 0) {
          const [row] = await query<{ wait_ms: string }>(RESERVE_START, [key, interval]);
          await sleep(Number(row!.wait_ms), signal);
        }
      } catch (error) {
        free();
        throw error;
      }
      let released = false;
      return {
        release: () => {
          if (released) return;
          released = true;
          free();
        },
      };
    },
    async hold(subject, ms) {
      await query(HOLD, [subject, Math.ceil(ms)]);
    },
    async heldFor(subjects) {
      const rows = await query<{ subject: string; left_ms: string }>(HELD, [subjects]);
      const left = new Map(rows.map((r) => [r.subject, Number(r.left_ms)]));
      return subjects.map((subject) => Math.max(0, left.get(subject) ?? 0));
    },
    end: () => {
      clearInterval(renewer);
      return pool.end();
    },
  };
}
