/**
 * The sandbox section's PostgreSQL part (issue 34): a 1,000,000-address sandbox job submitted
 * in-process and done by ONE in-process worker (bench/job-cost.ts), submit to `completed` against
 * the target. `npm run bench -- --only=sandbox --sandbox=bulk-pg` runs it alone.
 */
import { fmt, results, row } from './report';

const ADDRESSES = 1_000_000;
const TARGET_MS = 25_000;

export async function sandboxPgJob(): Promise<void> {
  console.log(`\n[4] sandbox job of ${ADDRESSES.toLocaleString('en-US')} addresses on PostgreSQL, one in-process worker`);
  // imported here: it counts the `pg` driver's queries from its import on
  const { jobCost } = await import('./job-cost');
  const r = await jobCost(ADDRESSES, 1, 'postgres');
  const totalMs = r.submitMs + r.wallMs;
  results.bulkPg = { ...r, totalMs };
  row('bulk 1,000,000 on PostgreSQL, 1 worker: submit → completed s', fmt(totalMs / 1000, 2), `< ${TARGET_MS / 1000}`, totalMs < TARGET_MS);
  row('bulk 1,000,000 on PostgreSQL: submission s / job s', `${fmt(r.submitMs / 1000, 2)} / ${fmt(r.wallMs / 1000, 2)}`);
  row('bulk 1,000,000 on PostgreSQL: CPU µs per 1,000 rows, submission / job', `${r.submitCpuUsPer1000} / ${r.cpuUsPer1000}`);
  row('bulk 1,000,000 on PostgreSQL: round trips per 1,000 rows (job)', String(r.roundTripsPer1000));
}
