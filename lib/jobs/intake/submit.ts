import { causeId, retriedKey } from '../../accounts/causes';
import { refund, reserve } from '../../accounts/quota';
import { auditRow } from '../../audit/record';
import { applySandboxTrigger } from '../../checks/triggers';
import type { Database } from '../../db/client';
import { pausepoint } from '../../failpoints/failpoints';
import { pokeWorker } from '../worker/embedded';
import { chunkSize } from './chunk-rows';
import { listShape, mailboxKey } from './duplicates';
import { estimateTime } from './estimate';
import { insertQueuedJob } from './insert';
import { submitInstant } from './instant';
import { type BulkRequest, listCounts, listDetails, listTarget, newJob } from './request';
import { freshResults } from './reuse';

export const INSTANT_LIMIT = 10;

/**
 * A bulk request, the route's one domain call: 10 or fewer addresses are verified now, more are
 * queued and an in-process worker is poked. `takeLimits` is the caller's per-account job limits
 * (lib/api/limits.ts), taken once the request is known to be instant or queued and before anything is written.
 */
export async function submitBulk(database: Database, request: BulkRequest, takeLimits: (queued: boolean) => Promise<void>) {
  // Triggers apply only to a request of one address (docs/api.md, "Sandbox mode"), so a list that
  // happens to hold an error-… address is still verified.
  if (request.sandbox && request.emails.length === 1) await applySandboxTrigger(request.emails.at(0)!);
  const queued = request.emails.length > INSTANT_LIMIT;
  await takeLimits(queued);
  if (!queued) return submitInstant(database, request);
  const answer = await submitQueued(database, request);
  pokeWorker();
  return answer;
}

/** More than 10: a queued job with its items and chunks, written in one transaction. */
export async function submitQueued(database: Database, request: BulkRequest) {
  const shape = await listShape(request.emails);
  const jobId = causeId('job');
  // an account that opted in gets its fresh results again, unreserved and free (lib/jobs/intake/reuse.ts)
  const reused =
    request.sandbox || request.noReuse
      ? []
      : await freshResults(database, request.userId, request.emails, (idx) => shape.duplicateOf[idx]! < 0 && mailboxKey(request.emails.at(idx)!) !== null);
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
    jobId,
    status: 'queued',
    ...listCounts(request, shape),
    reusedEmails: reused.length,
    estimatedTime: estimated,
    message: `Job queued. Poll GET /v1/verify/bulk/status/${jobId} for progress.`,
  };
}
