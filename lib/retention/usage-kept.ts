import type { Database, Db, Dialect } from '../db/client';
import { q, sqlValue } from '../db/sql';
import { dayOf } from '../usage/days';
import { isChargeable } from '../results/chargeable';
import { bool } from '../results/rows';

type Tx = Pick<Db, '$queryRawUnsafe'>;

async function openingOf(tx: Tx, dialect: Dialect, userId: string): Promise<number> {
  const rows = await tx.$queryRawUnsafe<{ created_at: number | bigint }[]>(
    q(dialect, `SELECT created_at FROM credit_ledger WHERE cause = ? AND kind = 'grant'`),
    `opening_${userId}`,
  );
  return Number(rows[0]?.created_at ?? 0);
}

/**
 * Deleting verifications without losing the usage report's counts: each batch is one
 * `DELETE … RETURNING` whose returned rows are added, per account, UTC day and mode, to `usage_kept`
 * in the same transaction, so a batch either is gone and counted or neither, whoever dies when.
 * GET /v1/usage (lib/usage/report.ts) adds `usage_kept` to the rows still stored. The chargeable rows
 * deleted are kept too (a job's in `jobs.kept_chargeable`, charged single checks in
 * `usage_kept.charged_singles`), so a job finishing later is charged for them and `npm run
 * audit-credits` (lib/accounts/audit.ts) still balances the ledger against the results.
 */

interface Gone {
  id: number | bigint;
  user_id: string;
  job_id: string | null;
  sandbox: boolean | number;
  cached: boolean | number;
  status: string;
  reason: string;
  created_at: number | bigint;
}

/**
 * Deletes at most `limit` verifications matching `where` (SQL written with `?`, the table aliased as
 * nothing: plain column names), with `byId` the lowest ids first, and keeps their counts. Returns how
 * many it deleted and the highest id among them (a caller walking by id goes on after it: the index
 * entries of rows just deleted stay until vacuumed, and a scan from the start again would step over
 * them all).
 */
export async function deleteVerifications(
  database: Database,
  where: string,
  params: unknown[],
  limit: number,
  byId = false,
): Promise<{ count: number; lastId: number }> {
  const { prisma, dialect } = database;
  return prisma.$transaction(async (tx) => {
    const gone = await tx.$queryRawUnsafe<Gone[]>(
      q(
        dialect,
        `DELETE FROM verifications WHERE id IN (SELECT id FROM verifications WHERE ${where}${byId ? ' ORDER BY id' : ''} LIMIT ${Math.floor(limit)})
        RETURNING id, user_id, job_id, sandbox, cached, status, reason, created_at`,
      ),
      ...params,
    );
    let lastId = -1;
    const counts = new Map<
      string,
      { userId: string; day: string; sandbox: boolean; checks: number; deliverable: number; undeliverable: number; unknown: number; chargedSingles: number }
    >();
    const keptPerJob = new Map<string, number>();
    const openings = new Map<string, number>();
    for (const row of gone) {
      lastId = Math.max(lastId, Number(row.id));
      const sandbox = bool(row.sandbox);
      const day = dayOf(Number(row.created_at));
      const key = `${row.user_id}/${day}/${sandbox}`;
      const count = counts.get(key) ?? { userId: row.user_id, day, sandbox, checks: 0, deliverable: 0, undeliverable: 0, unknown: 0, chargedSingles: 0 };
      count.checks++;
      if (isChargeable(row as unknown as Parameters<typeof isChargeable>[0])) {
        if (row.job_id !== null) keptPerJob.set(row.job_id, (keptPerJob.get(row.job_id) ?? 0) + 1);
        else if (!sandbox && !bool(row.cached)) {
          // charged as the audit counts it: a single check stored after the account's opening grant (lib/accounts/audit.ts)
          if (!openings.has(row.user_id)) openings.set(row.user_id, await openingOf(tx, dialect, row.user_id));
          if (Number(row.created_at) >= openings.get(row.user_id)!) count.chargedSingles++;
        }
      }
      if (row.status === 'deliverable') count.deliverable++;
      else if (row.status === 'undeliverable') count.undeliverable++;
      else if (row.status === 'unknown') count.unknown++;
      counts.set(key, count);
    }
    for (const c of counts.values()) {
      await tx.$executeRawUnsafe(
        q(
          dialect,
          `INSERT INTO usage_kept (user_id, day, sandbox, checks, deliverable, undeliverable, unknown, charged_singles) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
          ON CONFLICT (user_id, day, sandbox) DO UPDATE SET checks = usage_kept.checks + excluded.checks,
            charged_singles = usage_kept.charged_singles + excluded.charged_singles,
            deliverable = usage_kept.deliverable + excluded.deliverable, undeliverable = usage_kept.undeliverable + excluded.undeliverable,
            unknown = usage_kept.unknown + excluded.unknown`,
        ),
        c.userId,
        c.day,
        sqlValue(dialect, c.sandbox),
        c.checks,
        c.deliverable,
        c.undeliverable,
        c.unknown,
        c.chargedSingles,
      );
    }
    for (const [jobId, n] of keptPerJob) {
      await tx.$executeRawUnsafe(q(dialect, 'UPDATE jobs SET kept_chargeable = kept_chargeable + ? WHERE id = ?'), n, jobId);
    }
    return { count: gone.length, lastId };
  });
}

/** The kept counts of an account's days `[from, to]` (GET /v1/usage adds them to the stored rows). */
export async function keptUsage(database: Database, userId: string, from: string, to: string) {
  const { prisma, dialect } = database;
  const rows = await prisma.$queryRawUnsafe<
    { day: string; sandbox: boolean | number; checks: number; deliverable: number; undeliverable: number; unknown: number }[]
  >(
    q(dialect, 'SELECT day, sandbox, checks, deliverable, undeliverable, unknown FROM usage_kept WHERE user_id = ? AND day >= ? AND day <= ?'),
    userId,
    from,
    to,
  );
  return rows.map((row) => ({ ...row, sandbox: bool(row.sandbox) }));
}
