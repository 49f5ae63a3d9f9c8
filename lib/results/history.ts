import type { Settlement } from '../accounts/ledger';
import { reservationSwept } from '../accounts/quota';
import type { Database } from '../db/client';
import { insertSettled } from '../db/settled-insert';
import { cacheLookup, historyRows } from '../db/queries/results';
import { bulkInsert } from '../db/sql';
import { checkSyntax } from '../verifier/syntax';
import type { Verdict } from '../verifier/types';
import { bool, type StoredVerification, VERIFICATION_COLUMNS, verificationRow } from './rows';
import { readStoredDetails } from './stored-details';

/**
 * Records one single verification in history. The rows of all the checks that reach this point in
 * the same turn of the event loop go in one INSERT (one transaction instead of one each: about 5x
 * less write time per row at 10 concurrent requests); each caller still waits until its row is
 * stored, so nothing is answered that is not recorded. A paid check's reservation is settled in that
 * same transaction (lib/accounts/ledger.ts); one the sweeper already gave back is not stored, and its
 * caller gets the error instead.
 */
export async function recordSingle(database: Database, userId: string, verdict: Verdict, sandbox: boolean, cached: boolean, paid?: Settlement): Promise<void> {
  const row = verificationRow(verdict, { userId, jobId: null, idx: null, sandbox, source: 'single', cached, at: Date.now() });
  let batch = openBatches.get(database);
  if (!batch) {
    const open: Batch = { rows: [], paid: new Map(), stored: Promise.resolve(new Set()) };
    open.stored = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      openBatches.delete(database);
      return storeBatch(database, open);
    });
    openBatches.set(database, (batch = open));
  }
  batch.rows.push(row);
  if (paid) batch.paid.set(paid.cause, { settlement: paid, row });
  const lost = await batch.stored;
  if (paid && lost.has(paid.cause)) throw reservationSwept();
}

interface Batch {
  rows: unknown[][];
  paid: Map<string, { settlement: Settlement; row: unknown[] }>;
  /** the causes whose reservation was settled before (their rows are not stored) */
  stored: Promise<Set<string>>;
}

async function storeBatch(database: Database, batch: Batch): Promise<Set<string>> {
  if (batch.paid.size === 0) {
    await bulkInsert(database, 'verifications', VERIFICATION_COLUMNS, batch.rows);
    return new Set();
  }
  const keep = (won: Set<string>) => {
    const lost = new Set([...batch.paid.keys()].filter((cause) => !won.has(cause)));
    const dropped = new Set([...lost].map((cause) => batch.paid.get(cause)!.row));
    return { lost, rows: batch.rows.filter((row) => !dropped.has(row)) };
  };
  const settlements = [...batch.paid.values()].map((p) => p.settlement);
  return insertSettled(database, { settlements, table: 'verifications', columns: VERIFICATION_COLUMNS, rows: batch.rows, keep });
}

/**
 * An address as the cache and the history search compare it: ASCII letters lower-cased, nothing else
 * (what SQLite's lower() and PostgreSQL's under the "C" collation do, so the index on it serves the
 * queries of lib/db/queries/results.ts). One mailbox whatever the case of its spelling, as the
 * duplicates rule says (docs/lists.md).
 */
export function mailboxCase(email: string): string {
  return email.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}

const normalizedOf = (email: string) => {
  const syntax = checkSyntax(email);
  return syntax.ok ? syntax.normalized : null;
};

const openBatches = new Map<Database, Batch>();

export interface HistoryQuery {
  userId: string;
  sandbox: boolean;
  limit: number;
  before?: number;
  email?: string;
}

/**
 * The history a caller asks for: a sandbox caller lists only sandbox records; a production caller
 * lists production records unless it asks for sandbox ones (`?sandbox=true`).
 */
export function historyFor(
  database: Database,
  caller: { userId: string; sandbox: boolean },
  request: { sandbox?: boolean; limit: number; cursor?: string; email?: string },
) {
  return listHistory(database, {
    userId: caller.userId,
    sandbox: caller.sandbox || (request.sandbox ?? false),
    limit: request.limit,
    before: request.cursor === undefined ? undefined : Number(request.cursor),
    email: request.email,
  });
}

/** Past verifications, newest first, keyset-paged on the row id. */
export async function listHistory(database: Database, query: HistoryQuery) {
  const rows = await historyRows<StoredVerification>(
    database,
    'id, email, status, valid, deliverable, risk_level, reason, score, sandbox, source, job_id, created_at',
    {
      userId: query.userId,
      sandbox: query.sandbox,
      before: query.before,
      key: query.email === undefined ? undefined : mailboxCase(query.email),
      limit: query.limit + 1,
    },
  );
  const page = rows.slice(0, query.limit).map((row) => ({
    id: `vr_${row.id}`,
    email: row.email,
    status: row.status,
    valid: bool(row.valid),
    deliverable: bool(row.deliverable),
    risk_level: row.risk_level,
    reason: row.reason,
    score: Number(row.score),
    sandbox: bool(row.sandbox),
    source: row.source,
    jobId: row.job_id,
    createdAt: new Date(Number(row.created_at)).toISOString(),
  }));
  const next = rows.length > query.limit ? String(rows[query.limit - 1]!.id) : null;
  return { data: page, nextCursor: next };
}

/**
 * The caller's latest fresh production verdict for this mailbox (whatever the case of its spelling)
 * since `since`, rebuilt from its stored row for the address as asked; `unknown` answers are not reused.
 */
export async function cachedVerdict(database: Database, userId: string, email: string, since: number): Promise<Verdict | null> {
  const rows = await cacheLookup<StoredVerification>(database, userId, mailboxCase(email), since);
  const row = rows[0];
  if (!row) return null;
  const { details, evidence, normalized_email } = readStoredDetails(row.details);
  return {
    email,
    // the stored row may be another spelling of the mailbox: normalize the address as asked; a row
    // without normalized_email stored it the same as its address (lib/results/stored-details.ts)
    normalized_email: row.email === email && normalized_email !== undefined ? normalized_email : normalizedOf(email),
    valid: bool(row.valid),
    deliverable: bool(row.deliverable),
    risk_level: row.risk_level as Verdict['risk_level'],
    reason: row.reason as Verdict['reason'],
    sub_reason: row.sub_reason as Verdict['sub_reason'],
    confidence: Number(row.confidence),
    status: row.status as Verdict['status'],
    score: Number(row.score),
    provider: row.provider,
    mailbox_provider: row.mailbox_provider,
    details,
    disposable: bool(row.disposable),
    role: bool(row.role),
    free: bool(row.free),
    catch_all: bool(row.catch_all),
    did_you_mean: row.did_you_mean,
    // rows stored before the made-up address's (or postmaster's) reply was kept have no control_* (postmaster_*) fields
    evidence:
      evidence &&
      Object.assign({ control_code: null, control_enhanced_code: null, control_message: null, postmaster_code: null, postmaster_message: null }, evidence),
  };
}
