import type { Database } from '../db/client';
import { env } from '../config/env';
import { byDialect, q } from '../db/sql';
import { invalidRequest } from '../errors/app-error';
import { bumpAccountVersion } from '../accounts/versions';
import { deleteDeliveries } from './expire';
import { deleteVerifications } from './usage-kept';
import { recordAudit } from '../audit/record';

/**
 * Erasure (docs/retention.md): one address out of every store of an account, or of every account
 * (`npm run erase`, the operator's answer to an erasure request). Compared ignoring case; a list row
 * holding it in any column goes, as do stored answers and webhook bodies that contain it. Results
 * leave their usage counts and charges behind (lib/retention/usage-kept.ts), so the usage report
 * and `npm run audit-credits` still hold. Deleted in batches like retention, each its own transaction.
 */

export interface Erased {
  email: string;
  removed: { results: number; listRows: number; rules: number; idempotencyAnswers: number; webhookDeliveries: number };
}

/** The address as asked: trimmed, 400 when it cannot be one. */
export function erasableAddress(raw: string): string {
  const email = raw.trim();
  if (email.length < 3 || email.length > 320 || !email.includes('@') || /\s/.test(email) || email.includes('\u0000')) {
    throw invalidRequest('email', 'Not an email address.');
  }
  return email;
}

/** `userId` null: every account. */
export async function eraseAddress(database: Database, userId: string | null, raw: string, batch = env().EV_RETENTION_BATCH): Promise<Erased> {
  const email = erasableAddress(raw);
  const { prisma, dialect } = database;
  const contains = (column: string) =>
    byDialect(dialect, { sqlite: `instr(lower(${column}), lower(?)) > 0`, postgres: `strpos(lower(${column}), lower(?)) > 0` });
  const own = (column = 'user_id') => (userId === null ? '' : ` AND ${column} = ?`);
  const ownParam = userId === null ? [] : [userId];
  const removed: Erased['removed'] = { results: 0, listRows: 0, rules: 0, idempotencyAnswers: 0, webhookDeliveries: 0 };

  for (;;) {
    const { count } = await deleteVerifications(database, `lower(email) = lower(?)${own()}`, [email, ...ownParam], batch);
    removed.results += count;
    if (count < batch) break;
  }
  // another address's suggestion that named this one
  await prisma.$executeRawUnsafe(q(dialect, `UPDATE verifications SET did_you_mean = NULL WHERE lower(did_you_mean) = lower(?)${own()}`), email, ...ownParam);
  const ownJobs = userId === null ? '' : ' AND job_id IN (SELECT id FROM jobs WHERE user_id = ?)';
  for (;;) {
    const n = await prisma.$executeRawUnsafe(
      q(
        dialect,
        `DELETE FROM job_items WHERE (job_id, idx) IN (SELECT job_id, idx FROM job_items
        WHERE (lower(email) = lower(?) OR ${contains('"row"')})${ownJobs} LIMIT ${Math.floor(batch)})`,
      ),
      email,
      email,
      ...ownParam,
    );
    removed.listRows += n;
    if (n < batch) break;
  }
  removed.rules = await prisma.$executeRawUnsafe(
    q(dialect, `DELETE FROM rules WHERE "match" = 'email' AND lower("value") = lower(?)${own()}`),
    email,
    ...ownParam,
  );
  // every process's copy of the rule books drops the erased rule (lib/accounts/versions.ts)
  if (removed.rules > 0) await bumpAccountVersion(prisma, dialect, userId ?? 'all');
  removed.idempotencyAnswers = await prisma.$executeRawUnsafe(
    q(dialect, `DELETE FROM idempotency_keys WHERE response_body IS NOT NULL AND ${contains('response_body')}${own()}`),
    email,
    ...ownParam,
  );
  const ownHooks = userId === null ? '' : ' AND webhook_id IN (SELECT id FROM webhooks WHERE user_id = ?)';
  for (;;) {
    const rows = await prisma.$queryRawUnsafe<{ id: string }[]>(
      q(dialect, `SELECT id FROM webhook_deliveries WHERE ${contains('payload')}${ownHooks} LIMIT ${Math.floor(batch)}`),
      email,
      ...ownParam,
    );
    if (rows.length === 0) break;
    removed.webhookDeliveries += await deleteDeliveries(
      database,
      rows.map((row) => row.id),
    );
  }
  // sign-in throttle counters keyed by the address (lib/auth/throttle.ts): minutes of state, gone now
  await prisma.$executeRawUnsafe(q(dialect, `DELETE FROM auth_throttles WHERE ${contains('"key"')}`), email);
  // the operator's erasure (every account) takes the address out of the audit log too: a person's
  // email as actor or target, or the one typed at a refused sign-in (no route alters an audit row)
  if (userId === null) {
    for (const column of ['actor_email', 'target_label']) {
      await prisma.$executeRawUnsafe(q(dialect, `UPDATE audit_events SET ${column} = NULL WHERE lower(${column}) = lower(?)`), email);
    }
  }
  // the organisation's audit row: the counts only, never the address (the batches above are each
  // their own transaction, so the row follows the last of them)
  if (userId !== null) await recordAudit(prisma, userId, 'data.erased', { type: 'data' }, erasedCounts(removed));
  return { email, removed };
}

/** The counts as the audit row's details and `npm run erase --json` write them: the API's field names (lib/api/responses-data.ts). */
export function erasedCounts(removed: Erased['removed']) {
  return {
    results: removed.results,
    list_rows: removed.listRows,
    rules: removed.rules,
    idempotency_answers: removed.idempotencyAnswers,
    webhook_deliveries: removed.webhookDeliveries,
  };
}

/**
 * `npm run erase`: the address out of every account, one organisation at a time (so each gets its
 * audit row with its own counts), then whatever no organisation holds (throttle counters).
 */
export async function eraseEverywhere(database: Database, raw: string, batch = env().EV_RETENTION_BATCH): Promise<Erased & { organisations: string[] }> {
  const email = erasableAddress(raw);
  const { dialect } = database;
  const contains = (column: string) =>
    byDialect(dialect, { sqlite: `instr(lower(${column}), lower(?)) > 0`, postgres: `strpos(lower(${column}), lower(?)) > 0` });
  const holders = await database.prisma.$queryRawUnsafe<{ user_id: string }[]>(
    q(
      dialect,
      `
    SELECT user_id FROM verifications WHERE lower(email) = lower(?) OR lower(did_you_mean) = lower(?)
    UNION SELECT j.user_id FROM job_items i JOIN jobs j ON j.id = i.job_id WHERE lower(i.email) = lower(?) OR ${contains('i."row"')}
    UNION SELECT user_id FROM rules WHERE "match" = 'email' AND lower("value") = lower(?)
    UNION SELECT user_id FROM idempotency_keys WHERE response_body IS NOT NULL AND ${contains('response_body')}
    UNION SELECT w.user_id FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE ${contains('d.payload')}`,
    ),
    email,
    email,
    email,
    email,
    email,
    email,
    email,
  );
  const organisations = [...new Set(holders.map((row) => row.user_id))].sort();
  const total: Erased['removed'] = { results: 0, listRows: 0, rules: 0, idempotencyAnswers: 0, webhookDeliveries: 0 };
  const add = (removed: Erased['removed']) => {
    for (const what of Object.keys(total) as (keyof Erased['removed'])[]) total[what] += removed[what];
  };
  for (const orgId of organisations) add((await eraseAddress(database, orgId, email, batch)).removed);
  add((await eraseAddress(database, null, email, batch)).removed);
  return { email, removed: total, organisations };
}
