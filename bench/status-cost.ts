/**
 * What one account's list costs everyone else (issue 20), in-process:
 *   - the syntax pass of a list of quoted local parts (`listShape`), and the longest event-loop
 *     stall it causes while a timer ticks every 10 ms beside it;
 *   - one status poll of a running job with many duplicates (`jobStatus`), on SQLite and PostgreSQL.
 * Usage alone: npx tsx bench/status-cost.ts [rows] [--syntax=N] [--dialects=sqlite,postgres]
 */
import { openDatabase, type Database } from '../lib/db/client';
import { listShape } from '../lib/jobs/intake/duplicates';
import { storedUpload } from '../lib/jobs/export/formats';
import { insertQueuedJob } from '../lib/jobs/intake/insert';
import { jobStatus } from '../lib/jobs/status/status';
import { saveResults, verificationValues, type VerificationRecord } from '../lib/results/rows';
import { freshDatabaseUrl } from '../test/databases';

export interface SyntaxFigures {
  addresses: number;
  distinct: number;
  ms: number;
  lagP99Ms: number;
  lagMaxMs: number;
  cpuP99Ms: number;
  maxCpuMs: number;
}

/** `"first last<i>"@example<i % 40>.com`: a quoted local part, each distinct. */
export const quotedAddress = (i: number) => `"first last${i}"@example${i % 40}.com`;

export async function syntaxCost(addresses: number): Promise<SyntaxFigures> {
  const emails = Array.from({ length: addresses }, (_, i) => quotedAddress(i));
  const lag = lagProbe();
  const start = performance.now();
  // awaited: a listShape that yields (or returns a promise) is measured the same way
  const shape = await listShape(emails);
  const ms = performance.now() - start;
  // the probe sees a stall when the loop turns again
  await new Promise((resolve) => setTimeout(resolve, 20));
  const { p99, max, cpuP99Ms, maxCpuMs } = lag.stop();
  if (shape.valid !== addresses) throw new Error(`syntax: ${shape.valid} of ${addresses} valid`);
  return { addresses, distinct: addresses, ms, lagP99Ms: p99, lagMaxMs: max, cpuP99Ms, maxCpuMs };
}

/**
 * A 10 ms interval timer: how late each tick fires is how long the event loop was held. Beside
 * each lag, the CPU time this process used in it: on a shared machine a lag far above its CPU time
 * is other processes' (the loop was ready but not scheduled), one close to it is this code's.
 */
export function lagProbe(everyMs = 10) {
  const lags: { ms: number; cpuMs: number }[] = [];
  let last = performance.now();
  let lastCpu = process.cpuUsage();
  const timer = setInterval(() => {
    const now = performance.now();
    const cpu = process.cpuUsage(lastCpu);
    lags.push({ ms: Math.max(0, now - last - everyMs), cpuMs: (cpu.user + cpu.system) / 1000 });
    last = now;
    lastCpu = process.cpuUsage();
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      lags.sort((a, b) => a.ms - b.ms);
      const at = (q: number) => lags[Math.min(lags.length - 1, Math.floor(lags.length * q))];
      const cpu = lags.map((l) => l.cpuMs).sort((a, b) => a - b);
      return {
        samples: lags.length,
        p99: at(0.99)?.ms ?? 0,
        max: lags[lags.length - 1]?.ms ?? 0,
        // the worst interval's own CPU time, and the 99th percentile of CPU time per interval
        maxCpuMs: lags[lags.length - 1]?.cpuMs ?? 0,
        cpuP99Ms: cpu[Math.min(cpu.length - 1, Math.floor(cpu.length * 0.99))] ?? 0,
      };
    },
  };
}

export interface PollFigures {
  dialect: string;
  rows: number;
  duplicates: number;
  chunks: number;
  medianMs: number;
  maxMs: number;
  processed: number;
}

/**
 * A running job of `rows` addresses, every odd row a duplicate of the row before it (50%), chunks of
 * 100 (production's size): the first 40% of chunks done with their results, two open chunks
 * half answered, the rest pending. Times jobStatus as the route calls it.
 */
export async function pollCost(dialect: 'sqlite' | 'postgres', rows: number, polls = Number(process.env.BENCH_POLLS ?? 5)): Promise<PollFigures> {
  const fresh = await freshDatabaseUrl(dialect);
  const database = await openDatabase(fresh.url);
  try {
    await database.prisma.user.create({ data: { id: 'u_bench', email: 'bench@example.com', passwordHash: 'x' } });
    const emails = Array.from({ length: rows }, (_, i) => `user${i - (i % 2)}@example.com`);
    const shape = await listShape(emails);
    const chunkSize = 100;
    const chunks = Math.ceil(rows / chunkSize);
    await insertQueuedJob(
      database,
      {
        id: 'job_bench',
        userId: 'u_bench',
        sandbox: false,
        totalEmails: rows,
        validEmails: rows,
        invalidEmails: 0,
        duplicateEmails: shape.duplicates,
        ...storedUpload({}),
        uploadBytes: 0,
        reservedDay: null,
        reservedFree: 0,
        reservedCredits: 0,
      },
      { emails, duplicateOf: shape.duplicateOf },
      chunkSize,
    );
    const doneChunks = Math.floor(chunks * 0.4);
    const answered = (idx: number) => {
      const chunk = Math.floor(idx / chunkSize);
      return chunk < doneChunks || ((chunk === doneChunks || chunk === doneChunks + 1) && idx % chunkSize < chunkSize / 2);
    };
    await saveAnswers(database, emails, shape.duplicateOf, answered);
    await database.prisma.$executeRawUnsafe(
      dialect === 'postgres'
        ? `UPDATE job_chunks SET state = CASE WHEN no < $1 THEN 'done' WHEN no <= $2 THEN 'leased' ELSE state END WHERE job_id = 'job_bench'`
        : `UPDATE job_chunks SET state = CASE WHEN no < ? THEN 'done' WHEN no <= ? THEN 'leased' ELSE state END WHERE job_id = 'job_bench'`,
      doneChunks,
      doneChunks + 1,
    );
    await database.prisma.job.update({ where: { id: 'job_bench' }, data: { status: 'processing' } });
    const times: number[] = [];
    let processed = 0;
    for (let i = 0; i < polls; i++) {
      const start = performance.now();
      processed = (await jobStatus(database, 'u_bench', 'job_bench', { limit: 100, offset: 0 }, false)).processedEmails;
      times.push(performance.now() - start);
    }
    times.sort((a, b) => a - b);
    return { dialect, rows, duplicates: shape.duplicates, chunks, medianMs: times[Math.floor(times.length / 2)]!, maxMs: times[times.length - 1]!, processed };
  } finally {
    await database.prisma.$disconnect();
    await fresh.drop();
  }
}

async function saveAnswers(database: Database, emails: string[], duplicateOf: Int32Array, answered: (idx: number) => boolean) {
  let batch: unknown[][] = [];
  for (let idx = 0; idx < emails.length; idx++) {
    if (duplicateOf[idx]! >= 0 || !answered(idx)) continue;
    const record: VerificationRecord = {
      user_id: 'u_bench',
      job_id: 'job_bench',
      idx,
      email: emails[idx],
      sandbox: false,
      source: 'bulk',
      status: 'deliverable',
      valid: true,
      deliverable: true,
      risk_level: 'low',
      reason: 'accepted_email',
      score: 95,
      confidence: 90,
      provider: 'example.com',
      disposable: false,
      role: false,
      free: false,
      catch_all: false,
      did_you_mean: null,
      cached: false,
      sub_reason: null,
      mailbox_provider: null,
      details: '{}',
      created_at: 0,
    };
    batch.push(verificationValues(record));
    if (batch.length === 2000) {
      await saveResults(database, batch);
      batch = [];
    }
  }
  await saveResults(database, batch);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 1_000_000);
  const syntaxN = Number(process.argv.find((a) => a.startsWith('--syntax='))?.slice(9) ?? 0);
  const dialects = (process.argv.find((a) => a.startsWith('--dialects='))?.slice(11) ?? 'sqlite,postgres').split(',') as ('sqlite' | 'postgres')[];
  (async () => {
    if (syntaxN) console.log('syntax', await syntaxCost(syntaxN));
    for (const dialect of dialects) if (rows) console.log('poll', await pollCost(dialect, rows));
  })().catch((e) => {
    console.error(e);
    process.exitCode = 1;
  });
}
