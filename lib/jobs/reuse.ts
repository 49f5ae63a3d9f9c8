import type { Database } from '../db/client';
import { byDialect, selectRows, sqlBoolean } from '../db/sql';
import { AppError } from '../errors/errors';
import { NOT_RULED } from '../results/chargeable';
import { emailCase, mailboxCase } from '../results/history';
import { VERIFICATION_COLUMNS, type StoredVerification } from '../results/rows';

/**
 * Fresh results reused (opt-in per account, `users.reuse_days`): an address of a production list that
 * the account had verified within its freshness window is answered from that result at submission,
 * stored as the list's row with `cached` true and `reused_at` the time of the result it repeats, and
 * neither reserved nor charged (`reused_at IS NULL` is part of CHARGEABLE_SQL, lib/results/chargeable.ts).
 * Only results of a probe are reused: never an `unknown`, a rule's verdict, or a row that was itself reused
 * (so `reused_at` always names the check that was made). A monitor's run never reuses (lib/monitors/runs.ts).
 */

const DAY_MS = 24 * 3600 * 1000;
/** addresses per lookup: one IN list on the (user_id, lower(email)) index */
const LOOKUP_BATCH = 5_000;

/** The columns a reused row is written with: every stored column, then `reused_at`. */
export const REUSED_COLUMNS = [...VERIFICATION_COLUMNS, 'reused_at'] as const;

export async function reuseSettings({ prisma }: Database, userId: string) {
  const user = await prisma.user.findUnique({ where: { id: userId }, select: { reuseDays: true } });
  if (!user) throw new AppError('not_found', 'Account not found.');
  return { success: true as const, enabled: user.reuseDays !== null, days: user.reuseDays };
}

/** Turns reuse on with a window of `days`, or off (null). */
export async function setReuse(database: Database, userId: string, days: number | null) {
  await database.prisma.user.update({ where: { id: userId }, data: { reuseDays: days } });
  return reuseSettings(database, userId);
}

/**
 * For a production list of an account that opted in: per first occurrence of a valid address, the
 * row to store for it now (REUSED_COLUMNS order) when a fresh result exists. Empty when reuse is off.
 */
export async function reusedRows(
  database: Database, userId: string, jobId: string, emails: readonly string[], firsts: (idx: number) => boolean, now = Date.now(),
): Promise<Map<number, unknown[]>> {
  const out = new Map<number, unknown[]>();
  const user = await database.prisma.user.findUnique({ where: { id: userId }, select: { reuseDays: true } });
  if (!user || user.reuseDays === null) return out;
  const since = now - user.reuseDays * DAY_MS;
  // the addresses to look up, by the key the index compares
  const byKey = new Map<string, number[]>();
  for (let idx = 0; idx < emails.length; idx++) {
    if (!firsts(idx)) continue;
    const key = mailboxCase(emails[idx]!);
    const list = byKey.get(key);
    if (list) list.push(idx);
    else byKey.set(key, [idx]);
  }
  const keys = [...byKey.keys()];
  const from = byDialect(database.dialect, { sqlite: 'verifications INDEXED BY verifications_user_id_email_idx', postgres: 'verifications' });
  for (let at = 0; at < keys.length; at += LOOKUP_BATCH) {
    const batch = keys.slice(at, at + LOOKUP_BATCH);
    // the batch as one parameter (a JSON array): thousands of bound values cost more than the lookups
    const keysIn = byDialect(database.dialect, { postgres: 'ANY(?::text[])', sqlite: 'IN (SELECT value FROM json_each(?))' });
    const rows = await selectRows<StoredVerification & { k: string }>(database,
      `SELECT ${VERIFICATION_COLUMNS.join(', ')}, ${emailCase(database)} AS k FROM ${from}
        WHERE user_id = ? AND ${emailCase(database)} ${database.dialect === 'postgres' ? '= ' : ''}${keysIn} AND sandbox = ${sqlBoolean(database.dialect, false)}
          AND cached = ? AND reused_at IS NULL AND status <> 'unknown' AND ${NOT_RULED} AND created_at >= ?`,
      [userId, byDialect<unknown>(database.dialect, { postgres: batch, sqlite: JSON.stringify(batch) }), false, since]);
    // the latest result of each address
    const latest = new Map<string, StoredVerification>();
    for (const row of rows) {
      const seen = latest.get(row.k);
      if (!seen || Number(row.created_at) > Number(seen.created_at)) latest.set(row.k, row);
    }
    for (const [key, row] of latest) {
      for (const idx of byKey.get(key)!) {
        const record = row as unknown as Record<string, unknown>;
        const values = VERIFICATION_COLUMNS.map((column) => {
          switch (column) {
            case 'job_id': return jobId;
            case 'idx': return idx;
            case 'email': return emails[idx];
            case 'source': return 'bulk';
            case 'cached': return true;
            case 'created_at': return now;
            default: return record[column];
          }
        });
        out.set(idx, [...values, Number(row.created_at)]);
      }
    }
  }
  return out;
}
