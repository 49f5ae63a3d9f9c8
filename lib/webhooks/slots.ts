import { randomUUID } from 'node:crypto';
import type { Database } from '../db/client';
import { byDialect } from '../db/sql';

/**
 * In-flight limits of webhook attempts: EV_WEBHOOK_CONCURRENCY per process, EV_WEBHOOK_PER_ACCOUNT
 * per account and process (two accounts sending test events to receivers that never answer fill
 * their own slots, not everyone's), and EV_WEBHOOK_PER_ENDPOINT per endpoint. On PostgreSQL the
 * endpoint's limit holds across every process: a slot is a `webhook_leases` row taken by an INSERT
 * that only wins on a free or expired slot (as lib/db/politeness-pg.ts takes SMTP
 * leases), on the database's clock, expiring if its holder dies. On SQLite one process sends.
 */
export interface Limits {
  global: number;
  perAccount: number;
  perEndpoint: number;
}

let running = 0;
const perAccount = new Map<string, number>();
const perEndpoint = new Map<string, number>();
const holder = randomUUID();

const NOW_MS = `(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::bigint`;
const TAKE = `
  INSERT INTO "webhook_leases" ("webhook_id", "slot", "holder", "expires_at")
  SELECT $1, s, $2, ${NOW_MS} + $3 FROM generate_series(0, $4::int - 1) AS s
  WHERE NOT EXISTS (SELECT 1 FROM "webhook_leases" l WHERE l."webhook_id" = $1 AND l."slot" = s AND l."expires_at" > ${NOW_MS})
  ORDER BY s LIMIT 1
  ON CONFLICT ("webhook_id", "slot") DO UPDATE SET "holder" = excluded."holder", "expires_at" = excluded."expires_at"
    WHERE "webhook_leases"."expires_at" <= ${NOW_MS}
  RETURNING "slot"`;
const FREE = `DELETE FROM "webhook_leases" WHERE "webhook_id" = $1 AND "slot" = $2 AND "holder" = $3`;

const count = (map: Map<string, number>, key: string) => map.get(key) ?? 0;
const add = (map: Map<string, number>, key: string, n: number) => {
  const left = count(map, key) + n;
  if (left > 0) map.set(key, left);
  else map.delete(key);
};

/** Whether this process could start one more attempt for this account and endpoint (a cheap pre-check). */
export function hasRoom(limits: Limits, userId: string, webhookId: string, alsoTaken = 0): boolean {
  return running < limits.global && count(perAccount, userId) < limits.perAccount && count(perEndpoint, webhookId) + alsoTaken < limits.perEndpoint;
}

export function freeSlots(limits: Limits): number {
  return limits.global - running;
}

/**
 * Takes an attempt's slots, or null when any limit is full. `release` gives them back; `leaseMs`
 * is how long a PostgreSQL lease outlives a holder that died.
 */
export async function takeSlots(
  database: Database,
  limits: Limits,
  userId: string,
  webhookId: string,
  leaseMs: number,
): Promise<{ release(): Promise<void> } | null> {
  if (!hasRoom(limits, userId, webhookId)) return null;
  // counted before the lease query, so two claims of this process cannot both pass the check
  running++;
  add(perAccount, userId, 1);
  add(perEndpoint, webhookId, 1);
  const local = () => {
    running--;
    add(perAccount, userId, -1);
    add(perEndpoint, webhookId, -1);
  };
  if (byDialect(database.dialect, { sqlite: true, postgres: false })) return { release: async () => local() };
  let slot: number | undefined;
  try {
    const rows = await database.prisma.$queryRawUnsafe<{ slot: number }[]>(TAKE, webhookId, holder, leaseMs, limits.perEndpoint);
    slot = rows[0]?.slot;
  } catch (error) {
    local();
    throw error;
  }
  if (slot === undefined) {
    local();
    return null;
  }
  return {
    async release() {
      local();
      await database.prisma.$executeRawUnsafe(FREE, webhookId, slot, holder).catch((error) => console.error('[webhooks] lease', error));
    },
  };
}
