/**
 * The chaos run's books, two ways: the credit ledger's own audit (`auditCredits`, lib/accounts/audit.ts,
 * what `npm run audit-credits` runs), and a check by SQL that needs no ledger: per account, what it
 * paid (credits granted less credits left, plus free checks used) equals what its jobs' stored
 * results make chargeable, i.e. reserved less refunded is exactly the chargeable results stored.
 * And no (job, index) is stored twice, no job is left unfinished.
 */
import { auditCredits } from '../lib/accounts/audit';
import type { Database } from '../lib/db/client';
import { q } from '../lib/db/sql';
import { OPEN_SQL } from '../lib/jobs/states';
import { chargeableCount } from '../lib/results/chargeable';

export interface Audit {
  ok: boolean;
  accounts: number;
  /** accounts whose books do not hold: what they paid vs what is chargeable */
  wrong: { userId: string; paid: number; chargeable: number }[];
  stored: number;
  storedTwice: number;
  /** jobs not terminal, or completed with a chunk still open */
  inconsistentJobs: string[];
  /** what auditCredits names: accounts whose ledger does not hold, with its reasons */
  ledgerProblems: string[];
}

export async function auditBooks(database: Database, userIds: string[], granted: number): Promise<Audit> {
  const { prisma, dialect } = database;
  const wrong: Audit['wrong'] = [];
  for (const userId of userIds) {
    const user = await prisma.user.findUniqueOrThrow({ where: { id: userId } });
    const used = (await prisma.usageDay.findMany({ where: { userId } })).reduce((n, d) => n + d.used, 0);
    let chargeable = 0;
    for (const job of await prisma.job.findMany({ where: { userId, sandbox: false }, select: { id: true } }))
      chargeable += await chargeableCount(prisma, dialect, job.id);
    const paid = granted - user.credits + used;
    if (paid !== chargeable) wrong.push({ userId, paid, chargeable });
  }
  const [twice] = await prisma.$queryRawUnsafe<{ n: number | bigint }[]>(
    `SELECT COUNT(*) AS n FROM (SELECT job_id, idx FROM verifications WHERE job_id IS NOT NULL GROUP BY job_id, idx HAVING COUNT(*) > 1) t`,
  );
  const [stored] = await prisma.$queryRawUnsafe<{ n: number | bigint }[]>(`SELECT COUNT(*) AS n FROM verifications WHERE job_id IS NOT NULL`);
  const inconsistent = await prisma.$queryRawUnsafe<{ id: string }[]>(
    q(
      dialect,
      `SELECT j.id FROM jobs j WHERE
      (j.status = 'completed' AND EXISTS (SELECT 1 FROM job_chunks c WHERE c.job_id = j.id AND c.state <> 'done'))
      OR (j.status IN (${OPEN_SQL}))`,
    ),
  );
  const storedTwice = Number(twice!.n);
  const ledger = await auditCredits(database);
  const ledgerProblems = ledger.problems.flatMap((p) => p.problems.map((problem) => `${p.email}: ${problem}`));
  return {
    ok: wrong.length === 0 && storedTwice === 0 && inconsistent.length === 0 && ledgerProblems.length === 0,
    accounts: userIds.length,
    wrong,
    stored: Number(stored!.n),
    storedTwice,
    inconsistentJobs: inconsistent.map((r) => r.id),
    ledgerProblems,
  };
}
