/**
 * The reuse of fresh results (issue 32, item 3): an upload of 100,000 addresses of which 90% were
 * verified by the same account within its freshness window, with reuse on and off. In this process
 * on both databases, production accounting with the sandbox engine (EV_PRODUCTION_ENGINE=sandbox)
 * and one in-process worker: the time from submission to the job completed, and the credits it cost.
 * Run alone: npx tsx bench/reuse.ts
 */
import { ensureAccount } from '../lib/accounts/users';
import { grantCredits } from '../lib/accounts/quota';
import { useDatabase, type Database } from '../lib/db/client';
import { verifierFor } from '../lib/checks/verifiers';
import { submitQueued } from '../lib/jobs/intake/submit';
import { JobWorker } from '../lib/jobs/worker/worker';
import { setReuse } from '../lib/jobs/intake/reuse';
import { DIALECTS, freshDatabaseUrl } from '../test/databases';

export interface ReuseFigures {
  dialect: string;
  reuse: boolean;
  submitMs: number;
  totalMs: number;
  reused: number;
  credits: number;
}

async function upload(database: Database, userId: string, emails: string[]) {
  const before = (await database.prisma.user.findUniqueOrThrow({ where: { id: userId } })).credits;
  const started = performance.now();
  const answer = await submitQueued(database, { userId, sandbox: false, emails });
  const submitMs = performance.now() - started;
  for (;;) {
    const job = await database.prisma.job.findUniqueOrThrow({ where: { id: answer.jobId } });
    if (job.status === 'completed') break;
    if (job.status !== 'queued' && job.status !== 'processing') throw new Error(`job ${job.id} ${job.status}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  const totalMs = performance.now() - started;
  const after = (await database.prisma.user.findUniqueOrThrow({ where: { id: userId } })).credits;
  return { submitMs, totalMs, reused: answer.reusedEmails, credits: before - after };
}

export async function runReuseBench(total = 100_000, freshShare = 0.9): Promise<ReuseFigures[]> {
  Object.assign(process.env, {
    EV_PRODUCTION_ENGINE: 'sandbox',
    EV_ALLOW_PLACEHOLDER_IDENTITY: 'true',
    EV_EGRESS_POLICY: 'off',
    EV_FREE_DAILY: '0',
    EV_CHUNK_SIZE: '2000',
  });
  const figures: ReuseFigures[] = [];
  for (const dialect of process.env.REUSE_DIALECTS?.split(',') ?? DIALECTS) {
    const fresh = await freshDatabaseUrl(dialect as (typeof DIALECTS)[number]);
    const database = await useDatabase(fresh.url);
    const worker = new JobWorker(database, { concurrency: 50, leaseMs: 60_000, pollMs: 20, verifierFor });
    worker.start();
    try {
      const account = await ensureAccount(database, 'bench-reuse@example.com');
      await grantCredits(database, account.id, 4 * total);
      const known = Math.round(total * freshShare);
      // verified earlier (within the window): the first 90% of the upload
      await upload(
        database,
        account.id,
        Array.from({ length: known }, (_, i) => `member${i}@example${i % 50}.com`),
      );
      const list = Array.from({ length: total }, (_, i) => (i < known ? `member${i}@example${i % 50}.com` : `newcomer${i}@example${i % 50}.com`));
      for (const reuse of [false, true]) {
        await setReuse(database, account.id, reuse ? 7 : null);
        // the 10% new addresses are new on each pass, so both passes verify them
        const emails = list.map((email) => (email.startsWith('newcomer') ? email.replace('newcomer', `new${reuse ? 'b' : 'a'}`) : email));
        figures.push({ dialect, reuse, ...(await upload(database, account.id, emails)) });
      }
    } finally {
      await worker.stop();
      await database.prisma.$disconnect();
      await fresh.drop();
    }
  }
  return figures;
}

if (process.argv[1]?.endsWith('reuse.ts')) {
  for (const f of await runReuseBench()) {
    console.log(
      `${f.dialect} reuse ${f.reuse ? 'on ' : 'off'}: submit ${f.submitMs.toFixed(0)} ms, completed after ${f.totalMs.toFixed(0)} ms, ${f.reused} reused, ${f.credits} credits`,
    );
  }
  process.exit(0);
}
