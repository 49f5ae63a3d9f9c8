import type { Database } from '../db/client';
import { env } from '../env';
import { newId } from '../ids';
import { checkSyntax } from '../verifier/syntax';
import { refund, reserve } from '../quota';
import { isChargeable, refuseWithoutIdentity } from '../verification/single';
import type { Verdict } from '../verifier/types';
import { verifierFor } from '../verification/verifiers';
import { bulkCompletedEvent, enqueueEvent } from '../webhooks/outbox';
import { estimateTime } from './estimate';
import { bulkItem, verificationRow } from './results';
import { insertJobItems, insertQueuedJob, saveVerifications, summarize } from './store';

export const INSTANT_LIMIT = 10;

export interface BulkRequest {
  userId: string;
  sandbox: boolean;
  emails: string[];
  /** Original CSV rows (each an array of strings as JSON text) and header, kept for the download. */
  rows?: string[];
  columns?: string[];
  filename?: string;
}

function countFormats(emails: string[]): { valid: number; invalid: number } {
  let valid = 0;
  for (const email of emails) if (checkSyntax(email).ok) valid++;
  return { valid, invalid: emails.length - valid };
}

/** The upload's header and file name, kept on the job for the download and the dashboard. */
function columnsOf(request: BulkRequest): string | null {
  return request.columns ? JSON.stringify({ columns: request.columns, filename: request.filename ?? null }) : null;
}

function chunkSize(sandbox: boolean): number {
  return sandbox ? Math.max(env().EV_CHUNK_SIZE, 1) : Math.max(1, Math.min(env().EV_CHUNK_SIZE, 100));
}

/** 10 or fewer addresses: verified now, still recorded as a (completed) job. */
export async function submitInstant(database: Database, request: BulkRequest) {
  const { prisma, dialect } = database;
  const counts = countFormats(request.emails);
  if (!request.sandbox) refuseWithoutIdentity();
  const reservation = request.sandbox ? null : await reserve(database, request.userId, counts.valid);
  const jobId = newId('job');
  const verifier = verifierFor(request.sandbox, jobId);
  let verdicts: Verdict[] = [];
  try {
    verdicts = await Promise.all(request.emails.map(async (email) => (await verifier.verify(email)).verdict));
  } finally {
    if (reservation) await refund(database, request.userId, reservation, counts.valid - verdicts.filter(isChargeable).length);
  }
  const at = Date.now();
  const summary = await prisma.$transaction(async (tx) => {
    await tx.job.create({
      data: {
        id: jobId, userId: request.userId, sandbox: request.sandbox, status: 'completed', instant: true,
        totalEmails: request.emails.length, validEmails: counts.valid, invalidEmails: counts.invalid,
        columns: columnsOf(request),
        reservedDay: reservation?.day ?? null, reservedFree: reservation?.free ?? 0, reservedCredits: reservation?.credits ?? 0,
        createdAt: new Date(at), startedAt: new Date(at), completedAt: new Date(at),
      },
    });
    await insertJobItems(tx, dialect, jobId, request.emails, request.rows);
    const rows = verdicts.map((verdict, idx) =>
      verificationRow(verdict, { userId: request.userId, jobId, idx, sandbox: request.sandbox, source: 'bulk', cached: false, at }),
    );
    await saveVerifications(tx, dialect, rows);
    const summary = await summarize(tx, dialect, jobId, request.emails.length);
    await tx.job.update({ where: { id: jobId }, data: { summary: JSON.stringify(summary) } });
    const job = { id: jobId, sandbox: request.sandbox, totalEmails: request.emails.length };
    await enqueueEvent(tx, request.userId, bulkCompletedEvent(job, summary, new Date(at)));
    return summary;
  });
  const results = verdicts.map((verdict) => bulkItem({ ...verdict, cached: false }));
  return {
    success: true,
    instant: true,
    job_id: jobId,
    status: 'completed',
    total_emails: request.emails.length,
    valid_emails: counts.valid,
    invalid_format_emails: counts.invalid,
    results,
    // the same summary as the job's status: `invalid` never counts the `unknown` answers
    summary,
    message: `Verified ${request.emails.length} email${request.emails.length === 1 ? '' : 's'}.`,
  };
}

/** More than 10: a queued job with its items and chunks, written in one transaction. */
export async function submitQueued(database: Database, request: BulkRequest) {
  const counts = countFormats(request.emails);
  const jobId = newId('job');
  const estimated = await estimateTime(database, request.sandbox, request.emails.length);
  // Production work reserves its quota up front (402 if it cannot) and gets back what it did not use.
  const reservation = request.sandbox ? null : await reserve(database, request.userId, counts.valid);
  const job = {
    id: jobId, userId: request.userId, sandbox: request.sandbox, status: 'queued' as const,
    totalEmails: request.emails.length, validEmails: counts.valid, invalidEmails: counts.invalid, columns: columnsOf(request),
    reservedDay: reservation?.day ?? null, reservedFree: reservation?.free ?? 0, reservedCredits: reservation?.credits ?? 0,
  };
  try {
    await insertQueuedJob(database, job, request.emails, request.rows, chunkSize(request.sandbox));
  } catch (error) {
    if (reservation) await refund(database, request.userId, reservation, counts.valid);
    throw error;
  }
  return {
    success: true,
    job_id: jobId,
    status: 'queued',
    total_emails: request.emails.length,
    valid_emails: counts.valid,
    invalid_format_emails: counts.invalid,
    estimated_time: estimated,
    message: `Job queued. Poll GET /v1/verify/bulk/status/${jobId} for progress.`,
  };
}
