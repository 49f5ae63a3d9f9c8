/**
 * Where a queued submission's time goes on PostgreSQL (issue 34): `submitQueued`'s stages timed apart
 * in-process (the list's shape, the estimate, the audit row, the job's write), the `pg` statements of
 * the write timed and grouped by kind, and the database's own CPU over the write (every `postgres`
 * process's CPU time from /proc: the server runs on this machine).
 *   npx tsx bench/submit-split.ts 1000000
 */
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';
import { causeId } from '../lib/accounts/causes';
import { ensureAccount } from '../lib/accounts/users';
import { auditRow } from '../lib/audit/record';
import { useDatabase } from '../lib/db/client';
import { chunkSize } from '../lib/jobs/intake/chunk-rows';
import { listShape } from '../lib/jobs/intake/duplicates';
import { estimateTime } from '../lib/jobs/intake/estimate';
import { insertQueuedJob } from '../lib/jobs/intake/insert';
import { listDetails, listTarget, newJob } from '../lib/jobs/intake/request';
import { freshDatabaseUrl } from '../test/databases';

const statements = new Map<string, { n: number; ms: number }>();
const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
pg.Client.prototype.query = function timed(this: pg.Client, ...args: unknown[]) {
  const text = typeof args[0] === 'string' ? args[0] : ((args[0] as { text?: string })?.text ?? '?');
  const kind = text.replace(/\s+/g, ' ').slice(0, 60);
  const t = performance.now();
  const result = query.apply(this, args);
  if (result instanceof Promise) {
    const note = () => {
      const entry = statements.get(kind) ?? { n: 0, ms: 0 };
      entry.n++;
      entry.ms += performance.now() - t;
      statements.set(kind, entry);
    };
    result.then(note, note);
  }
  return result;
} as typeof pg.Client.prototype.query;

/** CPU ms of every postgres process on this machine (the server's backends, its writers). */
function postgresCpuMs(): number {
  const tick = 10; // USER_HZ 100
  let sum = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (!stat.includes('(postgres)')) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      sum += (Number(fields[11]) + Number(fields[12])) * tick;
    } catch {}
  }
  return sum;
}

const addresses = Number(process.argv[2] ?? 1_000_000);
const fresh = await freshDatabaseUrl('postgres');
process.env.DATABASE_URL = fresh.url;
const database = await useDatabase(fresh.url);
try {
  const account = await ensureAccount(database, 'submit-split@example.com');
  const emails = Array.from({ length: addresses }, (_, i) => `user${i}@sandbox${i % 50}.test`);
  const request = { userId: account.id, sandbox: true, emails };
  const stages: Record<string, number> = {};
  const at = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
    const t = performance.now();
    const result = await work();
    stages[name] = Math.round(performance.now() - t);
    return result;
  };
  // the queue's engine started before, as a running server's is
  await (await import('../lib/jobs/queue')).chunkQueue(database).open();
  const total = performance.now();
  const shape = await at('listShape', () => listShape(emails));
  const jobId = causeId('job');
  await at('estimateTime', () => estimateTime(database, true, emails.length - shape.duplicates));
  const job = newJob(request, shape, jobId, null);
  const audit = await at('auditRow', () => auditRow(database.prisma, account.id, 'list.uploaded', listTarget(request, jobId), listDetails(request)));
  statements.clear();
  const cpu = process.cpuUsage();
  const dbCpu = postgresCpuMs();
  await at('insertQueuedJob', () => insertQueuedJob(database, job, { emails, duplicateOf: shape.duplicateOf }, chunkSize(true), [], audit));
  const used = process.cpuUsage(cpu);
  const byKind = [...statements].sort((a, b) => b[1].ms - a[1].ms).slice(0, 12);
  console.log(
    JSON.stringify(
      {
        addresses,
        stagesMs: stages,
        totalMs: Math.round(performance.now() - total),
        writeProcessCpuMs: Math.round((used.user + used.system) / 1000),
        writeDatabaseCpuMs: postgresCpuMs() - dbCpu,
        writeStatements: byKind.map(([kind, { n, ms }]) => `${Math.round(ms)} ms / ${n}: ${kind}`),
      },
      null,
      2,
    ),
  );
} finally {
  await database.prisma.$disconnect();
  await fresh.drop();
}
process.exit(0);
