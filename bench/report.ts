/** The bench's shared report: its options, the table rows and results every section adds to. */
export const quick = process.argv.includes('--quick');
// --sandbox=single, =bulk or =bulk-pg runs one part of the sandbox section (the single call, the 1M job
// and its CSV on SQLite, or the 1M job on PostgreSQL with one worker)
const sandboxPart = process.argv.find((a) => a.startsWith('--sandbox='))?.slice('--sandbox='.length);
export const singleOnly = sandboxPart === 'single';
export const bulkOnly = sandboxPart === 'bulk';
export const bulkPgOnly = sandboxPart === 'bulk-pg';
export const CONCURRENCY = 10;
export const LOAD_MS = quick ? 3_000 : 10_000;

interface Row {
  metric: string;
  value: string;
  target?: string;
  pass?: boolean;
}
export const rows: Row[] = [];
export const results: Record<string, unknown> = {};
export const fmt = (n: number, digits = 1) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

export function row(metric: string, value: string, target?: string, pass?: boolean) {
  rows.push({ metric, value, target, pass });
  console.log(`  ${metric}: ${value}${target ? `  (target ${target}: ${pass ? 'PASS' : 'FAIL'})` : ''}`);
}

export function printTable() {
  const head = ['metric', 'value', 'target', 'result'];
  const body = rows.map((r) => [r.metric, r.value, r.target ?? '', r.target ? (r.pass ? 'PASS' : 'FAIL') : '']);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 1 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join(' | ');
  console.log(`\n${line(head)}\n${widths.map((w) => '-'.repeat(w)).join('-|-')}`);
  for (const b of body) console.log(line(b));
}
