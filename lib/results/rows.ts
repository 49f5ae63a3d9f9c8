import type { Database, Db } from '../db/client';
import { saveCountedResults } from '../db/job-progress';
import { insertRows } from '../db/sql';
import type { Verdict } from '../verifier/types';
import { storedDetails } from './stored-details';
import type { Bucket } from '../verifier/vocabulary';

/**
 * The `verifications` table's rows: one per verdict, written by single checks (history.ts) and by
 * jobs (lib/jobs), read back as history, cached verdicts, bulk items and CSV rows.
 */

/** A verdict as stored: one field per column of the table `verifications`. */
export interface VerificationRecord {
  user_id: string;
  job_id: string | null;
  idx: number | null;
  email: string;
  sandbox: boolean;
  source: 'single' | 'bulk';
  status: string;
  valid: boolean;
  deliverable: boolean;
  risk_level: string;
  reason: string;
  score: number;
  confidence: number;
  provider: string;
  disposable: boolean;
  role: boolean;
  free: boolean;
  catch_all: boolean;
  did_you_mean: string | null;
  cached: boolean;
  sub_reason: string | null;
  mailbox_provider: string | null;
  /** the rest of the verdict as JSON: details, and evidence, normalized_email and rule_id where they say something (lib/results/stored-details.ts) */
  details: string;
  created_at: number;
}

/** The order the batch inserts write VerificationRecord's fields in (every field, checked below). */
export const VERIFICATION_COLUMNS = [
  'user_id',
  'job_id',
  'idx',
  'email',
  'sandbox',
  'source',
  'status',
  'valid',
  'deliverable',
  'risk_level',
  'reason',
  'score',
  'confidence',
  'provider',
  'disposable',
  'role',
  'free',
  'catch_all',
  'did_you_mean',
  'cached',
  'sub_reason',
  'mailbox_provider',
  'details',
  'created_at',
] as const satisfies readonly (keyof VerificationRecord)[];

// a field of VerificationRecord missing from VERIFICATION_COLUMNS fails to compile here
const everyField: Exclude<keyof VerificationRecord, (typeof VERIFICATION_COLUMNS)[number]> extends never ? true : never = true;
void everyField;

/**
 * Each column's PostgreSQL type, for the batch save that sends one array per column
 * (`insertArrays`, lib/db/sql.ts): a statement of 24 parameters however many rows it stores.
 */
export const VERIFICATION_PG_TYPES = {
  user_id: 'text',
  job_id: 'text',
  idx: 'integer',
  email: 'text',
  sandbox: 'boolean',
  source: 'text',
  status: 'text',
  valid: 'boolean',
  deliverable: 'boolean',
  risk_level: 'text',
  reason: 'text',
  score: 'integer',
  confidence: 'integer',
  provider: 'text',
  disposable: 'boolean',
  role: 'boolean',
  free: 'boolean',
  catch_all: 'boolean',
  did_you_mean: 'text',
  cached: 'boolean',
  sub_reason: 'text',
  mailbox_provider: 'text',
  details: 'text',
  created_at: 'bigint',
} as const satisfies Record<(typeof VERIFICATION_COLUMNS)[number], string>;

/** Every column of `verifications`: its id, the fields a verdict is stored with, and reused_at (set by the copy of lib/jobs/intake/reuse.ts). */
export const STORED_COLUMNS = ['id', ...VERIFICATION_COLUMNS, 'reused_at'] as const;

export interface Recorded {
  userId: string;
  jobId: string | null;
  idx: number | null;
  sandbox: boolean;
  source: 'single' | 'bulk';
  cached: boolean;
  at: number;
}

export function verificationRecord(verdict: Verdict, r: Recorded): VerificationRecord {
  return {
    user_id: r.userId,
    job_id: r.jobId,
    idx: r.idx,
    email: verdict.email,
    sandbox: r.sandbox,
    source: r.source,
    status: verdict.status,
    valid: verdict.valid,
    deliverable: verdict.deliverable,
    risk_level: verdict.risk_level,
    reason: verdict.reason,
    score: verdict.score,
    confidence: verdict.confidence,
    provider: verdict.provider,
    disposable: verdict.disposable,
    role: verdict.role,
    free: verdict.free,
    catch_all: verdict.catch_all,
    did_you_mean: verdict.did_you_mean,
    cached: r.cached,
    sub_reason: verdict.sub_reason,
    mailbox_provider: verdict.mailbox_provider,
    details: storedDetails(verdict),
    created_at: r.at,
  };
}

/** A record's values in VERIFICATION_COLUMNS order, as the batch inserts (lib/db/sql.ts) take them. */
export const verificationValues = (record: VerificationRecord): unknown[] => VERIFICATION_COLUMNS.map((column) => record[column]);

/** A verdict as one stored row's values: the record's, in its literal's order, which is VERIFICATION_COLUMNS' (rows.test.ts checks it); a keyed read per column cost about 1 µs a row. */
export const verificationRow = (verdict: Verdict, r: Recorded): unknown[] => Object.values(verificationRecord(verdict, r));

/** Stores a job's results inside the caller's transaction; a result already stored is kept. The caller counts them into the job's progress (`recountProgress`, lib/db/job-progress.ts). */
export async function saveVerifications(tx: Pick<Db, '$executeRawUnsafe'>, dialect: Database['dialect'], rows: unknown[][]) {
  if (rows.length === 0) return;
  await insertRows(tx, dialect, 'verifications', VERIFICATION_COLUMNS, rows, 'ON CONFLICT DO NOTHING');
}

/** A batch of a job's results saved outside any transaction, counted into its progress (lib/db/job-progress.ts): the fastest path of the dialect. */
export async function saveResults(database: Database, rows: unknown[][]) {
  if (rows.length === 0) return;
  await saveCountedResults(database, VERIFICATION_COLUMNS, rows, 'ON CONFLICT DO NOTHING');
}

/** A stored row as the API shows a bulk item. */
export interface StoredVerification {
  id: number;
  email: string;
  status: string;
  valid: boolean | number;
  deliverable: boolean | number;
  risk_level: string;
  reason: string;
  score: number;
  confidence: number;
  provider: string;
  disposable: boolean | number;
  role: boolean | number;
  free: boolean | number;
  catch_all: boolean | number;
  did_you_mean: string | null;
  cached: boolean | number;
  sub_reason: string | null;
  mailbox_provider: string | null;
  sandbox: boolean | number;
  source: string;
  job_id: string | null;
  idx: number | null;
  details: string;
  created_at: number | bigint;
  /** lib/jobs/intake/reuse.ts: the time of the result this row repeats */
  reused_at?: number | bigint | null;
}

export const bool = (v: boolean | number | bigint) => v === true || v === 1 || v === 1n;

type ItemSource = Pick<
  StoredVerification,
  'email' | 'valid' | 'deliverable' | 'risk_level' | 'reason' | 'cached' | 'status' | 'score' | 'sub_reason' | 'mailbox_provider'
> &
  ({ details: string; created_at: number | bigint; reused_at?: number | bigint | null } | Pick<Verdict, 'rule_id'>);

/** A bulk item from a stored row (rule_id in its details JSON) or a fresh verdict (checked now). */
export function bulkItem(row: ItemSource) {
  const stored = 'created_at' in row;
  const reusedAt = stored && row.reused_at !== null && row.reused_at !== undefined ? Number(row.reused_at) : null;
  const extra: Partial<Pick<Verdict, 'rule_id'>> = 'details' in row && typeof row.details === 'string' ? JSON.parse(row.details) : row;
  return {
    email: row.email,
    valid: bool(row.valid),
    deliverable: bool(row.deliverable),
    risk_level: row.risk_level,
    reason: row.reason,
    cached: bool(row.cached),
    status: row.status,
    score: Number(row.score),
    sub_reason: row.sub_reason ?? null,
    mailbox_provider: row.mailbox_provider ?? null,
    rule_id: extra.rule_id ?? null,
    checkedAt: new Date(reusedAt ?? (stored ? Number(row.created_at) : Date.now())).toISOString(),
    reused: reusedAt !== null,
  };
}

/**
 * What a download can be narrowed to: a bucket, or `safe` (deliverable: the addresses a marketer
 * can send to without risk) with or without the catch-all ones the user chose to take.
 */
export type { Bucket };
export type DownloadFilter = Bucket | 'safe' | 'safe+catch-all';

/** SQL condition on `status` for a bucket or download filter. */
export function bucketCondition(bucket: DownloadFilter): string {
  switch (bucket) {
    case 'safe':
      return `status = 'deliverable'`;
    case 'safe+catch-all':
      return `status IN ('deliverable', 'catch-all')`;
    case 'deliverable':
      return `status = 'deliverable'`;
    case 'undeliverable':
      return `status = 'undeliverable'`;
    case 'unknown':
      return `status = 'unknown'`;
    case 'risky':
      return `status NOT IN ('deliverable', 'undeliverable', 'unknown')`;
  }
}
