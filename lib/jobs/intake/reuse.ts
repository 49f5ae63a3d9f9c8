import { recordAudit } from '../../audit/record';
import type { Database } from '../../db/client';
import { reusableResults } from '../../db/queries/results';
import { AppError } from '../../errors/app-error';
import { mailboxCase } from '../../results/history';
import { DAY_MS } from '../../usage/days';
import type { StringList } from './string-list';

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
  emails: StringList,
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
    const key = mailboxCase(emails.at(idx)!);
    const list = byKey.get(key);
    if (list) list.push(idx);
    else byKey.set(key, [idx]);
  }
  const keys = [...byKey.keys()];
  for (let at = 0; at < keys.length; at += LOOKUP_BATCH) {
    const rows = await reusableResults(database, userId, keys.slice(at, at + LOOKUP_BATCH), since);
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
 * The statement that stores reused rows for a job (each result copied inside the database as the
 * list's row, `cached`, `reused_at` its time) and its parameters, written for each database in
 * lib/db/queries/results.ts.
 */
export { copyReusedParams as copyParams, copyReusedSql } from '../../db/queries/results';
