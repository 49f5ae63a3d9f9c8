import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '@/lib/db/client';
import { ensureAccount } from '@/lib/accounts/users';
import { grantCredits, reserve } from '@/lib/accounts/quota';
import { auditCredits } from '@/lib/accounts/audit';
import { withKeyToken } from '@/lib/accounts/causes';
import { claimKey, requestHash, settleKey, type Claim } from '@/lib/api/idempotency';
import { saveChunkResults, type ChunkClaim } from '@/lib/jobs/queue/ledger';
import { dbNow, q } from '@/lib/db/sql';
import { claimChunk } from '@/lib/jobs/queue';
import { tableQueue } from '@/lib/jobs/queue/table';
import { completeChunkAndFinish, markProcessing } from '@/lib/jobs/worker/lifecycle';
import { submitBulk, submitQueued } from '@/lib/jobs/intake/submit';
import { JobWorker } from '@/lib/jobs/worker/worker';
import { verifierFor } from '@/lib/checks/verifiers';
import { jobResultRow } from '../api/stored-verdict';
import { sandboxVerdict } from '@/lib/verifier/sandbox';
import { beatNow } from '@/lib/accounts/owners';
import { DIALECTS, freshDatabaseUrl } from '../databases';
import { startWorkerProcess, subscribe, waitFor, type WorkerProcess } from './processes';

/**
 * Issue 29, item 5: upgrades lose nothing. A database as the previous release left it: on
 * PostgreSQL the release before pg-boss, so no `pgboss` schema and open chunks without a delivery,
 * holding a queued job, a processing job (one chunk done, one held by a worker that died), a sandbox
 * job, an instant list and a queued job answered under Idempotency-Keys, a single check whose
 * request died holding its reservation and its key, and webhook outbox rows. Then the rolling
 * restart: two new workers (real processes, which migrate the database and start pg-boss), an old
 * worker beside them (the previous release's claim: the conditional UPDATE of `job_chunks`, no
 * delivery), an old web server accepting a job (written with no delivery) and a new one accepting
 * another. Every job must finish with each address stored once, the dead check's credits come back,
 * the idempotent answers still replay, and `audit-credits` must hold.
 *
 * The old state is written with this release's code minus the deliveries (the issue's own recipe):
 * the database is then taken back to the schema before this change (its migration undone, the
 * pg-boss schema dropped), which is what the previous release's code wrote, since queued jobs then
 * had chunks and no delivery. PostgreSQL is where an upgrade stranded jobs; SQLite, one machine,
 * claims the ledger itself, and checks here that its upgrade keeps the jobs, credits and answers too.
 */
/** the migration of this change (reservation owners), undone to make the previous release's schema */
const UNDONE_MIGRATION = '20261127130000_reservation_owners';
const ENV = {
  EV_PRODUCTION_ENGINE: 'sandbox',
  EV_ALLOW_PLACEHOLDER_IDENTITY: 'true',
  EV_FREE_DAILY: '0',
  EV_CHUNK_SIZE: '10',
  EV_EMBEDDED_WORKER: 'false',
  EV_RESERVATION_TIMEOUT_MS: '2000',
};
const CREDITS = 1000;
const emails = (tag: string, n: number) => Array.from({ length: n }, (_, i) => `valid${i}@${tag}.test`);

describe.each(DIALECTS)('an upgrade from the previous release, during a rolling restart (%s)', (dialect) => {
  let url: string;
  let drop: () => Promise<void>;
  const saved = Object.fromEntries(Object.keys(ENV).map((name) => [name, process.env[name]]));
  const workers: WorkerProcess[] = [];
  let database: Database | null = null;

  beforeAll(async () => {
    Object.assign(process.env, ENV);
    ({ url, drop } = await freshDatabaseUrl(dialect));
  });
  afterAll(async () => {
    for (const worker of workers) await worker.kill('SIGKILL');
    await database?.prisma.$disconnect();
    await drop?.();
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it("finishes every job, gives the dead request's credits back, keeps the answers, and the books hold", async () => {
    // ---- the previous release's state ----
    const old = await openDatabase(url);
    const user = await ensureAccount(old, 'upgrade@example.com');
    await grantCredits(old, user.id, CREDITS);
    await subscribe(old, user.id);
    const hashOf = (body: unknown) => requestHash(new Request('http://localhost/v1/verify/bulk', { method: 'POST' }), false, Buffer.from(JSON.stringify(body)));

    const queued = emails('queued', 30);
    const queuedKey = (await claimKey(old, user.id, 'upgrade-queued', hashOf({ emails: queued }))) as Claim;
    const queuedAnswer = await withKeyToken(queuedKey.token, false, () => submitQueued(old, { userId: user.id, sandbox: false, emails: queued }));
    await settleKey(old, user.id, 'upgrade-queued', queuedKey.owner, Response.json(queuedAnswer));

    const processing = emails('processing', 30);
    const { jobId: processingId } = await submitQueued(old, { userId: user.id, sandbox: false, emails: processing });
    await markProcessing(old, processingId);
    const rowsOf = (jobId: string, list: string[], from: number, to: number) =>
      list.slice(from, to).map((email, i) => jobResultRow(sandboxVerdict(email), { userId: user.id, jobId, idx: from + i, sandbox: false }));
    /** A chunk of `jobId` claimed by `worker`; the chunks of other jobs claimed on the way are put back. */
    const claimOf = async (jobId: string, worker: string): Promise<ChunkClaim> => {
      let chunk = await claimChunk(old, worker, 60_000);
      while (chunk && chunk.jobId !== jobId) chunk = await claimChunk(old, worker, 60_000);
      expect(chunk?.jobId).toBe(jobId);
      await old.prisma.$executeRawUnsafe(
        q(
          dialect,
          `UPDATE job_chunks SET state = 'pending', worker_id = NULL, claim_token = NULL, lease_until = 0 WHERE state = 'leased' AND claim_token <> ?`,
        ),
        chunk!.token,
      );
      return chunk!;
    };
    // a chunk of the queued job done by an old worker
    const done = await claimOf(queuedAnswer.jobId, 'old-worker-1');
    expect(await saveChunkResults(old, done, rowsOf(done.jobId, queued, done.startIdx, done.endIdx))).toBe(true);
    expect(await completeChunkAndFinish(old, done)).toBe('open');
    // a worker of the old release died holding a chunk of the processing job, after saving 4 results
    const held = await claimOf(processingId, 'old-worker-2');
    expect(await saveChunkResults(old, held, rowsOf(processingId, processing, held.startIdx, held.startIdx + 4))).toBe(true);
    await old.prisma.$executeRawUnsafe(q(dialect, `UPDATE job_chunks SET lease_until = ${dbNow(dialect)} + 1000 WHERE claim_token = ?`), held.token);

    const { jobId: sandboxId } = await submitQueued(old, { userId: user.id, sandbox: true, emails: emails('sandbox', 25) });
    const instant = emails('instant', 4);
    const instantKey = (await claimKey(old, user.id, 'upgrade-instant', hashOf({ emails: instant }))) as Claim;
    const instantAnswer = await withKeyToken(instantKey.token, false, () =>
      submitBulk(old, { userId: user.id, sandbox: false, emails: instant }, async () => {}),
    );
    await settleKey(old, user.id, 'upgrade-instant', instantKey.owner, Response.json(instantAnswer));
    // a single check whose request died holding its key and its reservation, two minutes ago
    const deadKey = (await claimKey(old, user.id, 'upgrade-dead-check', hashOf({ email: 'valid@dead.test' }), Date.now() - 120_000)) as Claim;
    await withKeyToken(deadKey.token, false, () => reserve(old, user.id, 1, `chk_${deadKey.token}`));
    await old.prisma.$executeRawUnsafe(q(dialect, `UPDATE credit_ledger SET created_at = created_at - 120000 WHERE cause = ?`), `chk_${deadKey.token}`);
    const outbox = await old.prisma.webhookDelivery.count();
    expect(outbox).toBe(1); // the instant list's bulk.completed, not yet sent
    await old.prisma.$disconnect();

    // ---- back to the schema before this change: its migration undone, no pg-boss ----
    const admin = await openDatabase(url);
    if (dialect === 'postgres') await admin.prisma.$executeRawUnsafe('DROP SCHEMA pgboss CASCADE');
    await admin.prisma.$executeRawUnsafe('DROP TABLE ledger_owners');
    await admin.prisma.$executeRawUnsafe('ALTER TABLE credit_ledger DROP COLUMN owner');
    expect(await admin.prisma.$executeRawUnsafe(q(dialect, `DELETE FROM _prisma_migrations WHERE migration_name = ?`), UNDONE_MIGRATION)).toBe(1);
    await admin.prisma.$disconnect();

    // ---- the rolling restart: new workers beside an old one, an old and a new web server ----
    const workerEnv = { ...ENV, DATABASE_URL: url, EV_LEASE_MS: '1500' };
    workers.push(await startWorkerProcess(workerEnv));
    database = await openDatabase(url); // the new release's migrations, applied by the first process
    await beatNow(database);
    const oldWorker = new JobWorker(database, { concurrency: 2, leaseMs: 1500, pollMs: 20, verifierFor });
    let rolling = true;
    let oldClaims = 0;
    const oldWorking = (async () => {
      // the previous release's worker: claims the ledger's rows itself, knows nothing of deliveries;
      // it does two chunks before it is restarted as a new one
      while (rolling && oldClaims < 2) {
        const chunk = await tableQueue(database!).claim('old-worker-3', 1500);
        if (chunk) {
          oldClaims++;
          await oldWorker.process(chunk);
        } else {
          await new Promise((r) => setTimeout(r, 50));
        }
      }
    })();
    // an old web server accepts a job (no delivery), a new one another
    const { jobId: oldServerId } = await submitQueued(database, { userId: user.id, sandbox: false, emails: emails('oldserver', 25) });
    // (SQLite's queue is the ledger itself: nothing to take away)
    if (dialect === 'postgres') await database.prisma.$executeRawUnsafe(`DELETE FROM pgboss.job WHERE data->>'job' = $1`, oldServerId);
    const { jobId: newServerId } = await submitQueued(database, { userId: user.id, sandbox: false, emails: emails('newserver', 25) });
    workers.push(await startWorkerProcess(workerEnv));
    await new Promise((r) => setTimeout(r, 1000));
    rolling = false; // the old worker is restarted as a new one
    await oldWorking;
    expect(oldClaims).toBe(2);

    const jobs = [queuedAnswer.jobId, processingId, sandboxId, oldServerId, newServerId];
    const statuses = () => Promise.all(jobs.map(async (id) => (await database!.prisma.job.findUniqueOrThrow({ where: { id } })).status));
    await waitFor(statuses, (s) => s.every((status) => status === 'completed'), 90_000, 'job statuses');
    for (const [jobId, count] of [
      [queuedAnswer.jobId, 30],
      [processingId, 30],
      [sandboxId, 25],
      [oldServerId, 25],
      [newServerId, 25],
    ] as const) {
      const [row] = await database.prisma.$queryRawUnsafe<{ n: bigint; d: bigint }[]>(
        q(dialect, 'SELECT COUNT(*) AS n, COUNT(DISTINCT idx) AS d FROM verifications WHERE job_id = ?'),
        jobId,
      );
      expect({ jobId, stored: Number(row!.n), distinct: Number(row!.d) }).toEqual({ jobId, stored: count, distinct: count });
    }
    // the dead check's reservation came back (a row from before owners: after EV_RESERVATION_TIMEOUT_MS) and its key is free
    const dead = await waitFor(
      () => database!.prisma.creditMovement.findMany({ where: { cause: `chk_${deadKey.token}` }, orderBy: { id: 'asc' } }),
      (rows) => rows.length === 3,
      30_000,
      "the dead check's ledger rows",
    );
    expect(dead.map((m) => `${m.kind} ${m.credits}`)).toEqual(['reserve 1', 'charge 0', 'refund 1']);
    expect(await database.prisma.idempotencyKey.count({ where: { userId: user.id, key: 'upgrade-dead-check' } })).toBe(0);
    // the answers kept before the upgrade still replay
    for (const [key, body, answer] of [
      ['upgrade-queued', { emails: queued }, queuedAnswer],
      ['upgrade-instant', { emails: instant }, instantAnswer],
    ] as const) {
      const row = await claimKey(database, user.id, key, hashOf(body));
      expect(row).toMatchObject({ state: 'done', responseStatus: 200 });
      expect(JSON.parse((row as { responseBody: string }).responseBody)).toEqual(JSON.parse(JSON.stringify(answer)));
    }
    // the outbox row from before is still there (or sent), and each job that ended added its event
    expect(await database.prisma.webhookDelivery.count()).toBe(outbox + jobs.length);
    // paid what the stored results make chargeable, and the ledger agrees with every balance
    expect((await auditCredits(database)).problems).toEqual([]);
  }, 240_000);
});
