import type { reserve } from '../../accounts/quota';
import type { AuditTarget } from '../../audit/actions';
import type { AuditDetails } from '../../audit/record';
import { storedUpload, type UploadFormat } from '../export/formats';
import type { ListShape } from './duplicates';
import type { NewJob } from './insert';
import type { StringList } from './string-list';

/** A bulk request as the route hands it over, and what an instant list (instant.ts) and a queued one (submit.ts) both make of it. */

export interface BulkRequest {
  userId: string;
  sandbox: boolean;
  /** the addresses, trimmed (a plain array, or packed by the route's reader: ./string-list.ts) */
  emails: StringList;
  /** Original CSV rows (each an array of strings as JSON text) and header, kept for the download. */
  rows?: StringList;
  columns?: string[];
  filename?: string;
  format?: UploadFormat;
  /** the request body's size: the download's cap is relative to it (lib/jobs/export/csv.ts downloadCap) */
  uploadBytes?: number;
  /** never answer from the account's fresh results (lib/jobs/intake/reuse.ts) */
  noReuse?: boolean;
  /** the person submitting: the list's reservation counts against their caps (lib/accounts/member-caps.ts) */
  actorId?: string;
}

/** The job's row, the same for an instant and a queued list (written by insert.ts or submitInstant, instant.ts). */
export function newJob(request: BulkRequest, shape: ListShape, id: string, reservation: Reservation | null): NewJob {
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

export type Reservation = NonNullable<Awaited<ReturnType<typeof reserve>>>;

/** The counts every answer about a submitted list carries. */
export function listCounts(request: BulkRequest, shape: ListShape) {
  return {
    totalEmails: request.emails.length,
    validEmails: shape.valid,
    invalidFormatEmails: shape.invalid,
    duplicateEmails: shape.duplicates,
  };
}

/** A list in the audit log: its job, named by the uploaded file's name (never its addresses). */
export function listTarget(request: BulkRequest, jobId: string): AuditTarget {
  return { type: 'list', id: jobId, label: request.filename ?? null };
}

export function listDetails(request: BulkRequest): AuditDetails {
  return { emails: request.emails.length, ...(request.sandbox ? { sandbox: true } : {}) };
}
