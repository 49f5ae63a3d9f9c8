import { causeId } from '../../accounts/causes';
import { refund, refundIn, reservationSwept, reserve } from '../../accounts/quota';
import { recordAudit } from '../../audit/record';
import { verdictOfRules } from '../../checks/rule-verdict';
import { refuseWithoutIdentity } from '../../checks/single';
import { verifierFor } from '../../checks/verifiers';
import type { Database } from '../../db/client';
import { recountProgress } from '../../db/job-progress';
import { q, selectRows } from '../../db/sql';
import { AppError } from '../../errors/app-error';
import { failpoint } from '../../failpoints/failpoints';
import { isChargeable } from '../../results/chargeable';
import type { StoredVerification } from '../../results/rows';
import { bulkItem, saveVerifications, verificationRow } from '../../results/rows';
import { summarize } from '../../results/summary';
import { ruleBookFor } from '../../rules/store';
import type { Verdict } from '../../verifier/types';
import { bulkCompletedEvent, enqueueEvent } from '../../webhooks/outbox';
import { listShape, mailboxKey } from './duplicates';
import { insertJobItems } from './insert';
import { type BulkRequest, listCounts, listDetails, listTarget, newJob, type Reservation } from './request';
import { copyParams, copyReusedSql, freshResults, type Reused } from './reuse';
import { listToArray } from './string-list';

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
export async function submitInstant(database: Database, list: BulkRequest) {
  const { prisma, dialect } = database;
  // at most 10 entries: as plain arrays
  const request = { ...list, emails: listToArray(list.emails), rows: list.rows && listToArray(list.rows) };
  const shape = await listShape(request.emails);
  const firsts = request.emails.flatMap((email, idx) => (shape.duplicateOf[idx]! < 0 ? [{ email, idx }] : []));
  // addresses a rule decides before DNS are answered without a reservation (nor the identity check when all are)
  const rules = await ruleBookFor(database, request.userId);
  const byRule = await Promise.all(firsts.map(({ email }) => verdictOfRules(email, rules, request.sandbox)));
  // the account's fresh results, when it opted in (lib/jobs/intake/reuse.ts): answered from them, unreserved
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
      await recountProgress(tx, dialect, jobId);
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
    // checked when stored (`at`, its rows' created_at): a duplicate and its first row say the same time
    if (first < 0) return bulkItem({ ...verdictAt.get(idx)!, cached: false, created_at: at });
    return bulkItem({ ...verdictAt.get(first)!, email, cached: false, created_at: at });
  });
  return {
    instant: true,
    jobId,
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
