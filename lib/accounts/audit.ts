import type { Database } from '../db/client';
import { sqlBoolean } from '../db/sql';
import { snapshotOptions } from '../db/transactions';
import { CHARGEABLE_SQL } from '../results/chargeable';
import type { LedgerTx } from './ledger';
import { isOpen } from '../jobs/states';

/**
 * `npm run audit-credits` (scripts/audit-credits.ts) and the chaos bench: proves the books of every
 * account from the ledger, in one consistent snapshot. The equations (docs/guarantees.md, "The audit"):
 *
 *   users.credits          = Σ grant.credits − Σ charge.credits − Σ open reserve.credits
 *   usage_days.used (day)  = Σ charge.free(day) + Σ open reserve.free(day)
 *   each settled cause     : reserve = charge + refund (credits and free apart), all of one account
 *   each charge or refund  : has its reserve (opening balances excepted)
 *   each production job   : settled → charge = its chargeable results; unsettled → still running and
 *                            its chargeable results ≤ its reserve; no ledger row → no chargeable result
 *                            since the account's opening balance
 *   single checks          : chargeable, uncached production singles since the opening balance
 *                            = Σ charge of `chk_` causes
 *   member_usage_days.used : (organisation, person, day) = Σ reserve − Σ refund of the reserve rows
 *                            naming that person (credits and free together; lib/accounts/member-caps.ts)
 *   member_usage_months    : (organisation, person, month) = Σ member_usage_days.used of its days
 *
 * An open reserve is one with no charge row. Chargeable is `CHARGEABLE_SQL` (lib/results/chargeable.ts).
 */
export interface AccountProblem {
  userId: string;
  email: string;
  problems: string[];
}

export interface AuditReport {
  accounts: number;
  problems: AccountProblem[];
}

type Row = Record<string, unknown>;
const n = (value: unknown) => Number(value ?? 0);

export async function auditCredits(database: Database): Promise<AuditReport> {
  const { prisma, dialect } = database;
  const no = sqlBoolean(dialect, false);
  const read = async (tx: LedgerTx) => {
    const all = (sql: string) => tx.$queryRawUnsafe<Row[]>(sql);
    return {
      users: await all('SELECT id, email, credits FROM users'),
      sums: await all(`SELECT user_id, kind, SUM(credits) AS credits FROM credit_ledger WHERE kind IN ('grant', 'charge') GROUP BY user_id, kind`),
      open: await all(`SELECT r.user_id, r.day, SUM(r.credits) AS credits, SUM(r.free) AS free FROM credit_ledger r
        LEFT JOIN credit_ledger c ON c.cause = r.cause AND c.kind = 'charge' WHERE r.kind = 'reserve' AND c.id IS NULL GROUP BY r.user_id, r.day`),
      freeCharged: await all(`SELECT user_id, day, SUM(free) AS free FROM credit_ledger WHERE kind = 'charge' GROUP BY user_id, day`),
      usage: await all('SELECT user_id, day, used FROM usage_days'),
      unbalanced: await all(`SELECT r.user_id, r.cause FROM credit_ledger r JOIN credit_ledger c ON c.cause = r.cause AND c.kind = 'charge'
        LEFT JOIN credit_ledger f ON f.cause = r.cause AND f.kind = 'refund'
        WHERE r.kind = 'reserve' AND (r.credits <> c.credits + COALESCE(f.credits, 0) OR r.free <> c.free + COALESCE(f.free, 0)
          OR c.user_id <> r.user_id OR COALESCE(f.user_id, r.user_id) <> r.user_id)`),
      orphans: await all(`SELECT x.user_id, x.cause, x.kind FROM credit_ledger x LEFT JOIN credit_ledger r ON r.cause = x.cause AND r.kind = 'reserve'
        WHERE x.kind IN ('charge', 'refund') AND r.id IS NULL AND x.cause NOT LIKE 'opening%'`),
      jobs: await all(`SELECT j.id, j.user_id, j.status, COALESCE(v.n, 0) + j.kept_chargeable AS chargeable, COALESCE(v.latest, 0) AS latest,
          c.credits + c.free AS charged, r.credits + r.free AS reserved, COALESCE(o.created_at, 0) AS epoch
        FROM jobs j
        LEFT JOIN (SELECT job_id, COUNT(*) AS n, MAX(created_at) AS latest FROM verifications WHERE job_id IS NOT NULL AND ${CHARGEABLE_SQL} GROUP BY job_id) v ON v.job_id = j.id
        LEFT JOIN credit_ledger c ON c.cause = j.id AND c.kind = 'charge'
        LEFT JOIN credit_ledger r ON r.cause = j.id AND r.kind = 'reserve'
        LEFT JOIN credit_ledger o ON o.cause = 'opening_' || j.user_id AND o.kind = 'grant'
        WHERE j.sandbox = ${no}`),
      singles: await all(`SELECT v.user_id, COUNT(*) AS n FROM verifications v
        LEFT JOIN credit_ledger o ON o.cause = 'opening_' || v.user_id AND o.kind = 'grant'
        WHERE v.job_id IS NULL AND v.sandbox = ${no} AND v.cached = ${no} AND ${CHARGEABLE_SQL.replace(/(status|reason)/g, 'v.$1')}
          AND v.created_at >= COALESCE(o.created_at, 0) GROUP BY v.user_id`),
      // charged single checks deleted by retention or erasure (lib/retention/usage-kept.ts)
      keptSingles: await all(`SELECT user_id, SUM(charged_singles) AS n FROM usage_kept WHERE sandbox = ${no} GROUP BY user_id`),
      memberReserved: await all(`SELECT r.user_id, r.actor_id, r.day, SUM(r.credits + r.free - COALESCE(f.credits + f.free, 0)) AS used
        FROM credit_ledger r LEFT JOIN credit_ledger f ON f.cause = r.cause AND f.kind = 'refund'
        WHERE r.kind = 'reserve' AND r.actor_id IS NOT NULL GROUP BY r.user_id, r.actor_id, r.day`),
      memberUsage: await all('SELECT org_id, user_id, day, used FROM member_usage_days'),
      memberMonths: await all('SELECT org_id, user_id, month, used FROM member_usage_months'),
      singleCharges: await all(`SELECT user_id, SUM(credits + free) AS n FROM credit_ledger WHERE kind = 'charge' AND cause LIKE 'chk%' GROUP BY user_id`),
    };
  };
  // one snapshot of every table it compares
  const options = snapshotOptions(dialect, { timeout: 600_000, maxWait: 60_000 });
  const data = await prisma.$transaction((tx) => read(tx), options);

  const found = new Map<string, string[]>();
  const note = (userId: unknown, problem: string) => {
    const list = found.get(String(userId)) ?? [];
    if (list.length < 20) list.push(problem);
    found.set(String(userId), list);
  };
  const byUser = (rows: Row[], pick: (row: Row) => number, key = (row: Row) => String(row.user_id)) => {
    const map = new Map<string, number>();
    for (const row of rows) map.set(key(row), (map.get(key(row)) ?? 0) + pick(row));
    return map;
  };
  const grants = byUser(
    data.sums.filter((r) => r.kind === 'grant'),
    (r) => n(r.credits),
  );
  const charges = byUser(
    data.sums.filter((r) => r.kind === 'charge'),
    (r) => n(r.credits),
  );
  const openCredits = byUser(data.open, (r) => n(r.credits));
  for (const user of data.users) {
    const id = String(user.id);
    const expected = (grants.get(id) ?? 0) - (charges.get(id) ?? 0) - (openCredits.get(id) ?? 0);
    if (n(user.credits) !== expected) {
      note(
        id,
        `credits ${n(user.credits)} ≠ grants ${grants.get(id) ?? 0} − charges ${charges.get(id) ?? 0} − open reservations ${openCredits.get(id) ?? 0} = ${expected}`,
      );
    }
  }
  const dayKey = (row: Row) => `${row.user_id}|${row.day}`;
  const freeExpected = byUser(
    [...data.freeCharged, ...data.open].filter((r) => r.day !== null),
    (r) => n(r.free),
    dayKey,
  );
  const used = byUser(data.usage, (r) => n(r.used), dayKey);
  for (const key of new Set([...freeExpected.keys(), ...used.keys()])) {
    const [userId, day] = key.split('|');
    if ((used.get(key) ?? 0) !== (freeExpected.get(key) ?? 0)) {
      note(userId, `free verifications used on ${day}: ${used.get(key) ?? 0} ≠ charged + open reservations ${freeExpected.get(key) ?? 0}`);
    }
  }
  for (const row of data.unbalanced) note(row.user_id, `${row.cause}: reserve ≠ charge + refund`);
  for (const row of data.orphans) note(row.user_id, `${row.cause}: a ${row.kind} without a reservation`);
  for (const job of data.jobs) {
    const chargeable = n(job.chargeable);
    const unfinished = isOpen(job.status);
    if (job.charged !== null) {
      if (n(job.charged) !== chargeable) note(job.user_id, `job ${job.id}: ${chargeable} chargeable results, ${n(job.charged)} charged`);
      if (unfinished) note(job.user_id, `job ${job.id}: settled while still ${job.status}`);
    } else if (job.reserved !== null) {
      if (!unfinished) note(job.user_id, `job ${job.id}: ${job.status} with its reservation still open`);
      else if (chargeable > n(job.reserved)) note(job.user_id, `job ${job.id}: ${chargeable} chargeable results, ${n(job.reserved)} reserved`);
    } else if (chargeable > 0 && n(job.latest) >= n(job.epoch)) {
      note(job.user_id, `job ${job.id}: ${chargeable} chargeable results and no charge`);
    }
  }
  const singleCharges = byUser(data.singleCharges, (r) => n(r.n));
  const singles = byUser([...data.singles, ...data.keptSingles], (r) => n(r.n));
  for (const userId of new Set([...singles.keys(), ...singleCharges.keys()])) {
    if ((singles.get(userId) ?? 0) !== (singleCharges.get(userId) ?? 0)) {
      note(userId, `single checks: ${singles.get(userId) ?? 0} chargeable results, ${singleCharges.get(userId) ?? 0} charged`);
    }
  }
  const memberKey = (org: unknown, person: unknown, day: unknown) => `${org}|${person}|${day}`;
  const memberExpected = byUser(
    data.memberReserved,
    (r) => n(r.used),
    (r) => memberKey(r.user_id, r.actor_id, r.day),
  );
  const memberUsed = byUser(
    data.memberUsage,
    (r) => n(r.used),
    (r) => memberKey(r.org_id, r.user_id, r.day),
  );
  for (const key of new Set([...memberExpected.keys(), ...memberUsed.keys()])) {
    const [orgId, person, day] = key.split('|');
    if ((memberUsed.get(key) ?? 0) !== (memberExpected.get(key) ?? 0)) {
      note(orgId, `member ${person}'s charged checks on ${day}: ${memberUsed.get(key) ?? 0} counted ≠ reserved − refunded ${memberExpected.get(key) ?? 0}`);
    }
  }
  const monthOfDays = byUser(
    data.memberUsage,
    (r) => n(r.used),
    (r) => memberKey(r.org_id, r.user_id, String(r.day).slice(0, 7)),
  );
  const monthCounted = byUser(
    data.memberMonths,
    (r) => n(r.used),
    (r) => memberKey(r.org_id, r.user_id, r.month),
  );
  for (const key of new Set([...monthOfDays.keys(), ...monthCounted.keys()])) {
    const [orgId, person, month] = key.split('|');
    if ((monthCounted.get(key) ?? 0) !== (monthOfDays.get(key) ?? 0)) {
      note(orgId, `member ${person}'s charged checks in ${month}: ${monthCounted.get(key) ?? 0} counted ≠ its days' ${monthOfDays.get(key) ?? 0}`);
    }
  }
  const emails = new Map(data.users.map((u) => [String(u.id), String(u.email)]));
  return {
    accounts: data.users.length,
    problems: [...found].map(([userId, problems]) => ({ userId, email: emails.get(userId) ?? '(no account)', problems })),
  };
}
