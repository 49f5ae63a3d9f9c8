import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createApiKey } from '../lib/accounts/keys';
import { ensureAccount } from '../lib/accounts/users';
import { useDatabase, type Database } from '../lib/db/client';
import { storedUpload } from '../lib/jobs/export/formats';
import { insertQueuedJob } from '../lib/jobs/intake/insert';
import { saveResults, verificationRow } from '../lib/results/rows';
import { sandboxVerdict } from '../lib/verifier/sandbox';
import { address } from './bulk';

// The CSV bench's database (bench/csv.ts): completed sandbox jobs of `rows` results, and of `upload`
// rows with three uploaded columns, built once per directory and sizes, then reused.

/** The jobs to download and a key of their account. */
export interface Fixture {
  jobId: string;
  uploadJobId: string | null;
  key: string;
}

async function build(database: Database, userId: string, jobId: string, count: number, upload: boolean) {
  const emails = Array.from({ length: count }, (_, i) => address(i));
  const rows = upload
    ? emails.map((email, i) => [`Name ${i}`, email, i % 7 === 0 ? `=cmd${i}` : `Company, "${i % 13}"`]).map((row) => JSON.stringify(row))
    : undefined;
  const stored = storedUpload(upload ? { columns: ['name', 'email', 'company'], filename: 'list.csv' } : {});
  await insertQueuedJob(
    database,
    {
      id: jobId,
      userId,
      sandbox: true,
      totalEmails: count,
      validEmails: count,
      invalidEmails: 0,
      duplicateEmails: 0,
      ...stored,
      uploadBytes: 0,
      reservedDay: null,
      reservedFree: 0,
      reservedCredits: 0,
    },
    { emails, rows, duplicateOf: new Int32Array(count).fill(-1) },
    1000,
  );
  const at = Date.now();
  for (let start = 0; start < count; start += 10_000) {
    const batch: unknown[][] = [];
    for (let idx = start; idx < Math.min(count, start + 10_000); idx++) {
      batch.push(verificationRow(sandboxVerdict(emails[idx]!), { userId, jobId, idx, sandbox: true, source: 'bulk', cached: false, at }));
    }
    await saveResults(database, batch);
  }
  await database.prisma.job.update({ where: { id: jobId }, data: { status: 'completed', completedAt: new Date() } });
  await database.prisma.$executeRawUnsafe(`UPDATE job_chunks SET state = 'done' WHERE job_id = ?`, jobId);
}

/** The SQLite database under `baseDir` for these sizes (DATABASE_URL set to it), built when it is not there yet. */
export async function fixture(baseDir: string, rows: number, upload: number): Promise<{ database: Database; fx: Fixture }> {
  const dir = join(baseDir, `${rows}-${upload}`);
  mkdirSync(dir, { recursive: true });
  const url = `file:${join(dir, 'bench.db')}`;
  process.env.DATABASE_URL = url;
  const meta = join(dir, 'fixture.json');
  const database = await useDatabase(url);
  if (existsSync(meta)) return { database, fx: JSON.parse(readFileSync(meta, 'utf8')) as Fixture };
  const t0 = performance.now();
  const account = await ensureAccount(database, 'csv-bench@example.com');
  const { key } = await createApiKey(database, account.id, 'bench');
  const fx: Fixture = { jobId: 'job_csvbench', uploadJobId: upload ? 'job_csvbench_upload' : null, key };
  await build(database, account.id, fx.jobId, rows, false);
  if (fx.uploadJobId) await build(database, account.id, fx.uploadJobId, upload, true);
  writeFileSync(meta, JSON.stringify(fx));
  console.log(`built ${dir} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return { database, fx };
}
