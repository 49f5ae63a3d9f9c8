import { recordAudit } from '../../audit/record';
import type { Database } from '../../db/client';
import { byDialect, selectRows, sqlBoolean } from '../../db/sql';
import { AppError } from '../../errors/app-error';
import { NOT_RULED } from '../../results/chargeable';
import { emailCase, mailboxCase } from '../../results/history';
import { VERIFICATION_COLUMNS } from '../../results/rows';
import { DAY_MS } from '../../usage/days';

/**
 * Fresh results reused (opt-in per account, `users.reuse_days`): an address of a production list that
 * the account had verified within its freshness window is answered from that result at submission,
 * stored as the list's row with `cached` true and `reused_at` the time of the result it repeats, and
 * neither reserved nor charged (`reused_at IS NULL` is part of CHARGEABLE_SQL, lib/results/chargeable.ts).
 * Only results of a probe are reused: never an `unknown`, a rule's verdict, or a row that was itself reused
 * (so `reused_at` always names the check that was made). A monitor's run never reuses (lib/monitors/runs.ts).
 */

/** addresses per lookup: one IN list on the (user_id, lower(email)) index */
const LOOKUP_BATCH = 5_000;

export async function reuseSettings({ prisma }: Database, userId: string) {
  const user = await prisma.user.findUnique({ where: { id: userId }, select: { reuseDays: true } });
  if (!user) throw new AppError('not_found', 'Account not found.');
  return { success: true as const, enabled: user.reuseDays !== null, days: user.reuseDays };
}

/** Turns reuse on with a window of `days`, or off (null). */
export async function setReuse(database: Database, userId: string, days: number | null) {
  await database.prisma.$transaction(async (tx) => {
    const before = await tx.user.findUnique({ where: { id: userId }, select: { reuseDays: true } });
    await tx.user.update({ where: { id: userId }, data: { reuseDays: days } });
    await recordAudit(tx, userId, 'settings.changed', { type: 'settings', id: 'reuse' }, { setting: 'reuse_days', from: before?.reuseDays ?? null, to: days });
  });
  return reuseSettings(database, userId);
}

/** A row of the list answered from an earlier result: the row, and the id of that result. */
export interface Reused {
  idx: number;
  id: number;
}

/**
 * For a production list of an account that opted in: the first occurrences of valid addresses that
 * have a fresh result, with the id of the latest one. Empty when reuse is off. Only ids are read here;
 * the rows are copied inside the database when the job is written (`copyReused`).
 */
export async function freshResults(
  database: Database,
  userId: string,
  emails: readonly string[],
  firsts: (idx: number) => boolean,
  now = Date.now(),
): Promise<Reused[]> {
  const out: Reused[] = [];
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
  // the batch as one parameter (an array): thousands of bound values cost more than the lookups
  const keysIn = byDialect(database.dialect, { postgres: '= ANY(?::text[])', sqlite: 'IN (SELECT value FROM json_each(?))' });
  for (let at = 0; at < keys.length; at += LOOKUP_BATCH) {
    const batch = keys.slice(at, at + LOOKUP_BATCH);
    const rows = await selectRows<{ id: number | bigint; k: string }>(
      database,
      `SELECT id, ${emailCase(database)} AS k FROM ${from}
        WHERE user_id = ? AND ${emailCase(database)} ${keysIn} AND sandbox = ${sqlBoolean(database.dialect, false)}
          AND cached = ? AND reused_at IS NULL AND status <> 'unknown' AND ${NOT_RULED} AND created_at >= ?`,
      [userId, byDialect<unknown>(database.dialect, { postgres: batch, sqlite: JSON.stringify(batch) }), false, since],
    );
    // the latest result of each address (ids grow with time)
    const latest = new Map<string, number>();
    for (const row of rows) latest.set(row.k, Math.max(latest.get(row.k) ?? 0, Number(row.id)));
    for (const [key, id] of latest) for (const idx of byKey.get(key)!) out.push({ idx, id });
  }
  return out;
}

/** Rows copied per statement. */
export const COPY_BATCH = 5_000;

/**
 * The statement that stores reused rows for a job: each result copied inside the database as the
 * list's row (its index, the address as the list spells it), `cached`, `reused_at` its time.
 * Parameters: the job's id, now, then the rows as the dialect takes them (`copyParams`).
 */
export function copyReusedSql(dialect: Database['dialect']): string {
  const select = VERIFICATION_COLUMNS.map((column) => {
    switch (column) {
      case 'job_id':
        return '?';
      case 'idx':
        return 'm.idx';
      case 'email':
        return 'm.email';
      case 'source':
        return `'bulk'`;
      case 'cached':
        return sqlBoolean(dialect, true);
      case 'created_at':
        return '?';
      default:
        return `v.${column}`;
    }
  });
  const rows = byDialect(dialect, {
    postgres: 'unnest(?::int[], ?::int[], ?::text[]) AS m(id, idx, email)',
    sqlite: `(SELECT json_extract(value, '$[0]') AS id, json_extract(value, '$[1]') AS idx, json_extract(value, '$[2]') AS email FROM json_each(?)) m`,
  });
  return `INSERT INTO verifications (${VERIFICATION_COLUMNS.join(', ')}, reused_at)
    SELECT ${select.join(', ')}, v.created_at FROM ${rows} JOIN verifications v ON v.id = m.id`;
}

export function copyParams(dialect: Database['dialect'], jobId: string, now: number, rows: Reused[], emails: readonly string[]): unknown[] {
  return [
    jobId,
    now,
    ...byDialect<unknown[]>(dialect, {
      postgres: [rows.map((r) => r.id), rows.map((r) => r.idx), rows.map((r) => emails[r.idx])],
      sqlite: [JSON.stringify(rows.map((r) => [r.id, r.idx, emails[r.idx]]))],
    }),
  ];
}
