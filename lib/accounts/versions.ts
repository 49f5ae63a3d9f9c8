import type { Database } from '../db/client';
import { q, selectRows } from '../db/sql';

/**
 * An account's configuration version (`users.config_version`): every change to its rules or keys
 * bumps it after the change is written (`bumpAccountVersion`), and a process keeps its copies of
 * them (the rule book: lib/rules/store.ts; key lookups: ./key-cache.ts) for as long as the version
 * it reads is the one it loaded them under. The read is one primary-key lookup; the requests of an
 * account that arrive in the same turn of the event loop share it, and a request reuses a read
 * issued after it began (`since`), so a change is seen by every request that starts after the
 * writer returned, in every process (docs/guarantees.md).
 *
 * A copy is loaded after its version is read, never before: a copy is then at least as new as the
 * version it is kept under, and a bump made after the change always reaches it.
 */

interface Read {
  issuedAt: number;
  version: Promise<number | null>;
}

interface State {
  last: Map<string, Read>;
  pending: Map<string, { resolve(v: number | null): void; reject(e: unknown): void; promise: Promise<number | null> }> | null;
}

const states = new WeakMap<Database, State>();
/** ids per query: SQLite's and PostgreSQL's parameter limits are far above it */
const PER_QUERY = 100;

function stateOf(database: Database): State {
  let state = states.get(database);
  if (!state) states.set(database, (state = { last: new Map(), pending: null }));
  return state;
}

/**
 * The account's version now, or null when there is no such account. `since` (performance.now()
 * when the caller's request began): a read issued at or after it answers; otherwise a new one.
 */
export function accountVersion(database: Database, userId: string, since = performance.now()): Promise<number | null> {
  const state = stateOf(database);
  const known = state.last.get(userId);
  if (known && known.issuedAt >= since) return known.version;
  let batch = state.pending;
  if (!batch) {
    const open: NonNullable<State['pending']> = new Map();
    state.pending = batch = open;
    setImmediate(() => void flush(database, state, open));
  }
  let waiting = batch.get(userId);
  if (!waiting) {
    let resolve!: (v: number | null) => void;
    let reject!: (e: unknown) => void;
    const promise = new Promise<number | null>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    // a failed read is the request's error, answered by the caller; nothing else waits unhandled
    promise.catch(() => {});
    batch.set(userId, (waiting = { resolve, reject, promise }));
  }
  return waiting.promise;
}

async function flush(database: Database, state: State, batch: NonNullable<State['pending']>): Promise<void> {
  if (state.pending === batch) state.pending = null;
  const issuedAt = performance.now();
  if (state.last.size > 10_000) state.last.clear();
  for (const [userId, waiting] of batch) state.last.set(userId, { issuedAt, version: waiting.promise });
  const ids = [...batch.keys()];
  for (let i = 0; i < ids.length; i += PER_QUERY) {
    const part = ids.slice(i, i + PER_QUERY);
    try {
      const rows = await selectRows<{ id: string; config_version: number | bigint }>(
        database,
        `SELECT id, config_version FROM users WHERE id IN (${part.map(() => '?').join(', ')})`,
        part,
      );
      const found = new Map(rows.map((row) => [row.id, Number(row.config_version)]));
      for (const userId of part) batch.get(userId)!.resolve(found.get(userId) ?? null);
    } catch (error) {
      for (const userId of part) {
        if (state.last.get(userId)?.version === batch.get(userId)!.promise) state.last.delete(userId);
        batch.get(userId)!.reject(error);
      }
    }
  }
}

/**
 * After a change to the account's rules or keys is written: copies cached under the old version
 * (in every process) stop being used. `prisma` may be a transaction's client.
 */
export async function bumpAccountVersion(
  prisma: Pick<Database['prisma'], '$executeRawUnsafe'>,
  dialect: Database['dialect'],
  userIds: string | string[] | 'all',
): Promise<void> {
  if (userIds === 'all') {
    await prisma.$executeRawUnsafe('UPDATE users SET config_version = config_version + 1');
    return;
  }
  const ids = typeof userIds === 'string' ? [userIds] : [...new Set(userIds)];
  for (let i = 0; i < ids.length; i += PER_QUERY) {
    const part = ids.slice(i, i + PER_QUERY);
    await prisma.$executeRawUnsafe(q(dialect, `UPDATE users SET config_version = config_version + 1 WHERE id IN (${part.map(() => '?').join(', ')})`), ...part);
  }
}
