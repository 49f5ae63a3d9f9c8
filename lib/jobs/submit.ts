import type { Database } from '../db/client';
import { auditRow, recordAudit, type AuditDetails } from '../audit/record';
import type { AuditTarget } from '../audit/actions';
import { env } from '../config/env';
import { refund, refundIn, reservationSwept, reserve } from '../accounts/quota';
import { causeId, retriedKey } from '../accounts/causes';
import { failpoint, pausepoint } from '../failpoints/failpoints';
import { AppError } from '../errors/app-error';
import { refuseWithoutIdentity } from '../checks/single';
import { isChargeable } from '../results/chargeable';
import type { Verdict } from '../verifier/types';
import { applySandboxTrigger } from '../checks/triggers';
import { verifierFor } from '../checks/verifiers';
import { verdictOfRules } from '../checks/rule-verdict';
import { ruleBookFor } from '../rules/store';
import { bulkCompletedEvent, enqueueEvent } from '../webhooks/outbox';
import { listShape, mailboxKey, type ListShape } from './duplicates';
import { copyParams, copyReusedSql, freshResults, type Reused } from './reuse';
import { q, selectRows } from '../db/sql';
import type { StoredVerification } from '../results/rows';
import { pokeWorker } from './embedded';
import { estimateTime } from './estimate';
import { storedUpload, type UploadFormat } from './formats';
import { bulkItem, saveVerifications, verificationRow } from '../results/rows';
import { summarize } from '../results/summary';
import { insertJobItems, insertQueuedJob, type NewJob } from './insert';

export const INSTANT_LIMIT = 10;

export interface BulkRequest {
  userId: string;
  sandbox: boolean;
  emails: string[];
  /** Original CSV rows (each an array of strings as JSON text) and header, kept for the download. */
  rows?: string[];
  columns?: string[];
  filename?: string;
  format?: UploadFormat;
  /** the request body's size: the download's cap is relative to it (lib/jobs/csv.ts downloadCap) */
  uploadBytes?: number;
  /** never answer from the account's fresh results (lib/jobs/reuse.ts) */
  noReuse?: boolean;
  /** the person submitting: the list's reservation counts against their caps (lib/accounts/member-caps.ts) */
  actorId?: string;
}

/** The job's row, the same for an instant and a queued list (written by insert.ts or submitInstant). */
function newJob(request: BulkRequest, shape: ListShape, id: string, reservation: Reservation | null): NewJob {
  return {
    id,
    userId: request.userId,
    sandbox: request.sandbox,
    totalEmails: request.emails.length,
    validEmails: shape.valid,
    invalidEmails: shape.invalid,
    duplicateEmails: shape.duplicates,
    ...storedUpload(request),
    uploadBytes: request.uploadBytes ?? 0,
    reservedDay: reservation?.day ?? null,
    reservedFree: reservation?.free ?? 0,
    reservedCredits: reservation?.credits ?? 0,
  };
}

type Reservation = NonNullable<Awaited<ReturnType<typeof reserve>>>;

/** The counts every answer about a submitted list carries. */
function listCounts(request: BulkRequest, shape: ListShape) {
  return {
    total_emails: request.emails.length,
    valid_emails: shape.valid,
    invalid_format_emails: shape.invalid,
    duplicate_emails: shape.duplicates,
  };
}

/** A list in the audit log: its job, named by the uploaded file's name (never its addresses). */
function listTarget(request: BulkRequest, jobId: string): AuditTarget {
  return { type: 'list', id: jobId, label: request.filename ?? null };
}

function listDetails(request: BulkRequest): AuditDetails {
  return { emails: request.emails.length, ...(request.sandbox ? { sandbox: true } : {}) };
}

export function chunkSize(sandbox: boolean): number {
  return sandbox ? Math.max(env().EV_CHUNK_SIZE, 1) : Math.max(1, Math.min(env().EV_CHUNK_SIZE, 100));
}

/**
 * A bulk request, the route's one domain call: 10 or fewer addresses are verified now, more are
 * queued and an in-process worker is poked. `takeLimits` is the caller's per-account job limits
 * (lib/api/limits.ts), taken once the request is known to be instant or queued and before anything is written.
 */
export async function submitBulk(database: Database, request: BulkRequest, takeLimits: (queued: boolean) => Promise<void>) {
  // Triggers apply only to a request of one address (docs/api.md, "Sandbox mode"), so a list that
  // happens to hold an error-… address is still verified.
  if (request.sandbox && request.emails.length === 1) await applySandboxTrigger(request.emails[0]!);
  const queued = request.emails.length > INSTANT_LIMIT;
  await takeLimits(queued);
  if (!queued) return submitInstant(database, request);
  const answer = await submitQueued(database, request);
  pokeWorker();
  return answer;
}

/** The stored results an instant list reuses, by the row that reuses them (at most 10). */
async function storedRows(database: Database, fresh: Reused[]): Promise<Map<number, StoredVerification>> {
  if (fresh.length === 0) return new Map();
  const rows = await selectRows<StoredVerification>(
    database,
    `SELECT * FROM verifications WHERE id IN (${fresh.map(() => '?').join(', ')})`,
    fresh.map((r) => r.id),
  );
  const byId = new Map(rows.map((row) => [Number(row.id), row]));
  return new Map(fresh.flatMap((r) => (byId.has(r.id) ? [[r.idx, byId.get(r.id)!] as const] : [])));
}

/** 10 or fewer addresses: verified now (or answered from fresh results), still recorded as a (completed) job. */
async function submitInstant(database: Database, request: BulkRequest) {
  const { prisma, dialect } = database;
  const shape = await listShape(request.emails);
  const firsts = request.emails.flatMap((email, idx) => (shape.duplicateOf[idx]! < 0 ? [{ email, idx }] : []));
  // addresses a rule decides before DNS are answered without a reservation (nor the identity check when all are)
  const rules = await ruleBookFor(database, request.userId);
  const byRule = await Promise.all(firsts.map(({ email }) => verdictOfRules(email, rules, request.sandbox)));
  // the account's fresh results, when it opted in (lib/jobs/reuse.ts): answered from them, unreserved
  const position = new Map(firsts.map(({ idx }, i) => [idx, i]));
  const fresh =
    request.sandbox || request.noReuse
      ? []
      : await freshResults(
          database,
          request.userId,
          request.emails,
          (idx) => position.has(idx) && !byRule[position.get(idx)!] && mailboxKey(request.emails[idx]!) !== null,
        );
  const reusedRow = await storedRows(database, fresh);
  const toReserve = shape.distinctValid - byRule.filter(Boolean).length - reusedRow.size;
  if (!request.sandbox && toReserve > 0) refuseWithoutIdentity();
  // each mailbox is verified and charged once; its later rows take the first row's verdict
  const jobId = causeId('job');
  // reserved before the work, settled in the transaction that writes the completed job and its rows
  const reservation = request.sandbox ? null : await reserve(database, request.userId, toReserve, jobId, { actorId: request.actorId });
  // what is settled is what was reserved: a retry of an Idempotency-Key took over its first attempt's
  // reservation, made when the rules or DNS may have said otherwise (issue 29, item 7)
  const reserved = reservation ? reservation.free + reservation.credits : 0;
  if (reservation?.adopted && reserved < toReserve) {
    await refund(database, request.userId, reservation, reserved);
    throw new AppError(
      'conflict',
      `The first attempt of this Idempotency-Key reserved ${reserved} verifications and this list now needs ${toReserve} (its rules or domains changed since); nothing was stored or charged. Retry it: the key is free again (docs/guarantees.md).`,
    );
  }
  const verifier = verifierFor(request.sandbox, jobId);
  let verdicts: (Verdict | null)[] = [];
  try {
    verdicts = await Promise.all(
      firsts.map(async ({ email, idx }, i) => byRule[i] ?? (reusedRow.has(idx) ? null : (await verifier.verify(email, { rules })).verdict)),
    );
  } catch (error) {
    if (reservation) await refund(database, request.userId, reservation, reserved);
    throw error;
  }
  failpoint('instant.mid-bulk');
  const verdictAt = new Map(firsts.flatMap(({ idx }, i) => (verdicts[i] ? [[idx, verdicts[i]] as const] : [])));
  const at = Date.now();
  const summary = await storeInstant(database, request.userId, reservation, () =>
    prisma.$transaction(async (tx) => {
      await tx.job.create({
        data: {
          ...newJob(request, shape, jobId, reservation),
          status: 'completed',
          instant: true,
          createdAt: new Date(at),
          startedAt: new Date(at),
          completedAt: new Date(at),
        },
      });
      await insertJobItems(tx, dialect, jobId, { emails: request.emails, rows: request.rows, duplicateOf: shape.duplicateOf });
      const rows = firsts.flatMap(({ idx }, i) =>
        verdicts[i] ? [verificationRow(verdicts[i], { userId: request.userId, jobId, idx, sandbox: request.sandbox, source: 'bulk', cached: false, at })] : [],
      );
      await saveVerifications(tx, dialect, rows);
      if (fresh.length) await tx.$executeRawUnsafe(q(dialect, copyReusedSql(dialect)), ...copyParams(dialect, jobId, at, fresh, request.emails));
      // charged: this attempt's chargeable results, whatever the reservation it settles was sized for
      const charged = verdicts.filter((verdict) => verdict !== null && isChargeable(verdict)).length;
      if (reservation && !(await refundIn(tx, dialect, request.userId, reservation, reserved - charged))) throw reservationSwept();
      const summary = await summarize(tx, dialect, jobId, request.emails.length, shape.duplicates);
      await tx.job.update({ where: { id: jobId }, data: { summary: JSON.stringify(summary) } });
      const job = { id: jobId, sandbox: request.sandbox, totalEmails: request.emails.length };
      await enqueueEvent(tx, request.userId, bulkCompletedEvent(job, summary, new Date(at)));
      await recordAudit(tx, request.userId, 'list.uploaded', listTarget(request, jobId), listDetails(request));
      return summary;
    }),
  );
  // one result per row, in order: a duplicate repeats its first row's verdict
  const results = request.emails.map((email, idx) => {
    const first = shape.duplicateOf[idx]!;
    const reused = reusedRow.get(first < 0 ? idx : first);
    if (reused) return bulkItem({ ...reused, email, cached: true, created_at: at, reused_at: reused.created_at });
    if (first < 0) return bulkItem({ ...verdictAt.get(idx)!, cached: false });
    return bulkItem({ ...verdictAt.get(first)!, email, cached: false });
  });
  return {
    instant: true,
    job_id: jobId,
    status: 'completed',
    ...listCounts(request, shape),
    results,
    // the same summary as the job's status: `invalid` never counts the `unknown` answers
    summary,
    message: `Verified ${request.emails.length} email${request.emails.length === 1 ? '' : 's'}.`,
  };
}

/**
 * Runs the transaction that stores an instant list and settles its reservation; if it fails,
 * nothing was stored and the reservation goes back whole (a no-op when it was settled; kept and
 * retried if the refund fails too): this process's reservations are never swept while it lives.
 */
async function storeInstant<T>(database: Database, userId: string, reservation: Reservation | null, store: () => Promise<T>): Promise<T> {
  try {
    return await store();
  } catch (error) {
    if (reservation) await refund(database, userId, reservation, reservation.free + reservation.credits).catch(() => undefined);
    throw error;
  }
}

/** More than 10: a queued job with its items and chunks, written in one transaction. */
export async function submitQueued(database: Database, request: BulkRequest) {
  const shape = await listShape(request.emails);
  const jobId = causeId('job');
  // an account that opted in gets its fresh results again, unreserved and free (lib/jobs/reuse.ts)
  const reused =
    request.sandbox || request.noReuse
      ? []
      : await freshResults(database, request.userId, request.emails, (idx) => shape.duplicateOf[idx]! < 0 && mailboxKey(request.emails[idx]!) !== null);
  const toVerify = shape.distinctValid - reused.length;
  const estimated = await estimateTime(database, request.sandbox, request.emails.length - shape.duplicates - reused.length);
  // Production work reserves its quota up front (402 if it cannot) and gets back what it did not
  // use; a mailbox listed twice is verified and reserved once.
  const reservation = request.sandbox ? null : await reserve(database, request.userId, toVerify, jobId, { actorId: request.actorId });
  const job = newJob(request, shape, jobId, reservation);
  // a retry of an Idempotency-Key whose first attempt queued the job and died before answering
  try {
    const queuedBefore = retriedKey() && (await database.prisma.job.count({ where: { id: jobId } })) > 0;
    // reserved, the job row not yet visible (a long insert): the reservation's owner keeps the sweeper off it
    await pausepoint('job.before-insert');
    // the audit row is made before the write (its actor's email read now) and written with the job
    const audit = await auditRow(database.prisma, request.userId, 'list.uploaded', listTarget(request, jobId), listDetails(request));
    if (!queuedBefore)
      await insertQueuedJob(
        database,
        job,
        { emails: request.emails, rows: request.rows, duplicateOf: shape.duplicateOf },
        chunkSize(request.sandbox),
        reused,
        audit,
      );
  } catch (error) {
    // no job was written: the reservation goes back whole (this process's are never swept while it
    // lives; a refund that fails too is kept and retried, lib/accounts/owners.ts)
    if (reservation) await refund(database, request.userId, reservation, reservation.free + reservation.credits).catch(() => undefined);
    throw error;
  }
  return {
    job_id: jobId,
    status: 'queued',
    ...listCounts(request, shape),
    reused_emails: reused.length,
    estimated_time: estimated,
    message: `Job queued. Poll GET /v1/verify/bulk/status/${jobId} for progress.`,
  };
}
