/**
 * Where a 1M sandbox submission's memory goes, in-process on SQLite (issue 34): the bench's body
 * (bench/bulk.ts bulkBody), parsed (lib/jobs/intake/bulk-request.ts), its duplicates found
 * (lib/jobs/intake/duplicates.ts), then submitted (lib/jobs/intake/submit.ts: listShape again and
 * the job written). Per stage: the peak of RSS, V8 heap used, heap total and external memory
 * (sampled every 10 ms), and the same after a full garbage collection (what the stage keeps), in MB.
 *   npx tsx --expose-gc bench/submit-memory.ts 1000000
 */
import { ensureAccount } from '../lib/accounts/users';
import { useDatabase } from '../lib/db/client';
import { parseBulkRequest } from '../lib/jobs/intake/bulk-request';
import { submitQueued } from '../lib/jobs/intake/submit';
import { listShape } from '../lib/jobs/intake/duplicates';
import { freshDatabaseUrl } from '../test/databases';
import { bulkBody } from './bulk';

const gc = (globalThis as { gc?: () => void }).gc!;
const mb = (n: number) => Math.round(n / 1048576);
let peak = { rss: 0, heapUsed: 0, heapTotal: 0, external: 0 };
const sample = () => {
  const m = process.memoryUsage();
  peak = {
    rss: Math.max(peak.rss, m.rss),
    heapUsed: Math.max(peak.heapUsed, m.heapUsed),
    heapTotal: Math.max(peak.heapTotal, m.heapTotal),
    external: Math.max(peak.external, m.external),
  };
};
const timer = setInterval(sample, 10);
const report = (stage: string) => {
  sample();
  const p = peak;
  gc();
  const m = process.memoryUsage();
  console.log(
    stage.padEnd(12),
    'peak rss/heapUsed/heapTotal/external',
    mb(p.rss),
    mb(p.heapUsed),
    mb(p.heapTotal),
    mb(p.external),
    '| after gc',
    mb(m.rss),
    mb(m.heapUsed),
    mb(m.heapTotal),
    mb(m.external),
  );
  peak = { rss: 0, heapUsed: 0, heapTotal: 0, external: 0 };
};
const fresh = await freshDatabaseUrl('sqlite');
const database = await useDatabase(fresh.url);
const account = await ensureAccount(database, 'mem@example.com');
report('open');
let body: Buffer | null = bulkBody(Number(process.argv[2] ?? 1_000_000));
report('body');
const parsed = await parseBulkRequest(body);
report('parsed');
body = null;
let _shape: unknown = await listShape(parsed.emails);
report('listShape');
_shape = null;
report('dropped');
const { jobId } = await submitQueued(database, { ...parsed, userId: account.id, sandbox: true });
report('submitted');
console.log(jobId);
clearInterval(timer);
await database.prisma.$disconnect();
await fresh.drop();
