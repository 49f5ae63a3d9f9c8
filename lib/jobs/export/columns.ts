import type { Dialect } from '../../db/client';
import { packedFlags } from '../../db/queries/jobs';
import type { VerificationRecord } from '../../results/rows';

/**
 * The result columns of a job's download, declared once: their order, how each is read from a
 * stored row, how it is written as a cell, and what it means. The SELECT (resultSelect), the cells
 * of a row (resultValues, resultLine), the CSV and xlsx writers (csv.ts), the OpenAPI description
 * of the download (downloadColumnsText, lib/api/operations/jobs.ts) and the list in docs/lists.md
 * (checked by columns.test.ts) all come from RESULT_COLUMN_SPECS.
 */

/** `text` and `number` cells are written as stored; a `flag` (a boolean column) as `true`/`false`. */
type Kind = 'text' | 'number' | 'flag';

interface ResultColumn {
  /** the header cell, and the column of `verifications` it is read from */
  readonly name: keyof VerificationRecord;
  readonly kind: Kind;
  /** read from the row itself (job_items) rather than from the verdict a duplicate shares with its first occurrence */
  readonly own?: true;
  readonly description: string;
}

export const RESULT_COLUMN_SPECS = [
  { name: 'email', kind: 'text', own: true, description: 'the address as uploaded' },
  { name: 'valid', kind: 'flag', description: 'the address is well formed and its domain accepts mail' },
  { name: 'deliverable', kind: 'flag', description: 'the mailbox accepted the address' },
  { name: 'risk_level', kind: 'text', description: '`low`, `medium`, `high` or `unknown`' },
  { name: 'reason', kind: 'text', description: 'why, in one word (docs/verdicts.md)' },
  { name: 'status', kind: 'text', description: 'the verdict: deliverable, undeliverable, risky, catch-all, disposable, role-based or unknown' },
  { name: 'score', kind: 'number', description: '0-100, higher is safer to send' },
  { name: 'provider', kind: 'text', description: "the address's domain" },
  { name: 'disposable', kind: 'flag', description: 'a throwaway-mail domain' },
  { name: 'role', kind: 'flag', description: 'a role address (info@, sales@)' },
  { name: 'free', kind: 'flag', description: 'a free mail provider' },
  { name: 'catch_all', kind: 'flag', description: 'the domain accepts any address' },
  { name: 'did_you_mean', kind: 'text', description: 'a likely correction of a mistyped domain' },
  { name: 'cached', kind: 'flag', description: 'answered from a recent verdict instead of a new check' },
  { name: 'sub_reason', kind: 'text', description: 'the finer reason, when there is one (for example `greylisted`)' },
  { name: 'mailbox_provider', kind: 'text', description: 'who runs the mailboxes, read from the MX hosts (for example `google`)' },
] as const satisfies readonly ResultColumn[];

export type ResultColumnName = (typeof RESULT_COLUMN_SPECS)[number]['name'];
export const RESULT_COLUMNS: readonly ResultColumnName[] = RESULT_COLUMN_SPECS.map((column) => column.name);

/** Added after the result columns when a list has duplicates. */
export const DUPLICATE_COLUMN = {
  name: 'duplicate_of',
  description:
    'empty on a first occurrence, else the row of the first occurrence as a spreadsheet numbers the full download (header = row 1, first address = row 2)',
} as const;

/**
 * A page row as resultSelect reads it: idx, the text and number columns in declaration order, the
 * flags as one integer (bit i is FLAG_COLUMNS[i]: every value the driver hands back costs, and a
 * million rows are streamed), the upload's row JSON or NULL, and duplicate_of when asked for.
 */
export type ResultRow = unknown[];

const VALUE_COLUMNS = RESULT_COLUMN_SPECS.filter((column) => column.kind !== 'flag');
export const FLAG_COLUMNS: readonly ResultColumnName[] = RESULT_COLUMN_SPECS.filter((column) => column.kind === 'flag').map((column) => column.name);
export const FLAGS_AT = 1 + VALUE_COLUMNS.length;
export const UPLOAD_AT = FLAGS_AT + 1;
export const DUPLICATE_AT = UPLOAD_AT + 1;

/**
 * The result columns of the SELECT, on `verifications v` (and `job_items i` for `own` columns when
 * `own` is 'i'), the flags packed as lib/db/queries/jobs.ts writes them for the database.
 */
export function resultSelect(dialect: Dialect, own: 'i' | 'v'): string {
  const values = VALUE_COLUMNS.map((column) => `${'own' in column ? own : 'v'}.${column.name}`);
  return `${values.join(', ')}, ${packedFlags(dialect, 'v', FLAG_COLUMNS)} AS flags`;
}

/** Reads one column's value from a ResultRow, as the cell's value (flags as 'true'/'false'). */
const readers: ((row: ResultRow) => unknown)[] = RESULT_COLUMN_SPECS.map((column) => {
  if (column.kind === 'flag') {
    const bit = FLAG_COLUMNS.indexOf(column.name);
    return (row) => (((row[FLAGS_AT] as number) >> bit) & 1 ? 'true' : 'false');
  }
  const at = 1 + VALUE_COLUMNS.findIndex((c) => c.name === column.name);
  return column.kind === 'number' ? (row) => Number(row[at]) : (row) => row[at];
});

/** The result cells of one row as values (RESULT_COLUMNS order), appended to `cells`. */
export function resultValues(row: ResultRow, cells: unknown[]): unknown[] {
  for (const read of readers) cells.push(read(row));
  return cells;
}

/** The result cells of one row written by `cell` and joined by commas (no line end). */
export function resultCells(row: ResultRow, cell: (value: unknown) => string): string {
  let line = cell(readers[0]!(row));
  for (let i = 1; i < readers.length; i++) line += `,${cell(readers[i]!(row))}`;
  return line;
}

/** The columns as the OpenAPI description of the download states them. */
export function downloadColumnsText(): string {
  return `Columns: the upload's own (if any), then \`${RESULT_COLUMNS.join(',')}\`, then \`${DUPLICATE_COLUMN.name}\` when the list has duplicates. ${RESULT_COLUMN_SPECS.map(
    (column) => `\`${column.name}\`: ${column.description}`,
  ).join('; ')}; \`${DUPLICATE_COLUMN.name}\`: ${DUPLICATE_COLUMN.description}.`;
}
