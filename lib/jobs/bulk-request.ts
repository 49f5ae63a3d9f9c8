import { ApiError, invalidRequest } from '../api/errors';
import { validate } from '../api/body';
import { bulkBody } from '../api/schemas';
import { env } from '../env';

/** Validates a bulk body: size limit first (413), then shape (400); rows must match emails. */
export function parseBulkRequest(input: unknown) {
  const emails = (input as { emails?: unknown } | null)?.emails;
  const max = env().EV_MAX_BULK_EMAILS;
  if (Array.isArray(emails) && emails.length > max) {
    throw new ApiError('too_many_emails', `A bulk request may hold at most ${max} emails; this one has ${emails.length}.`, { limit: max });
  }
  const body = validate(bulkBody, input);
  if (body.rows && body.rows.length !== body.emails.length) {
    throw invalidRequest('rows', 'rows must hold one entry per email, in the same order.');
  }
  if (body.rows && !body.columns) throw invalidRequest('columns', 'columns (the header of rows) is required with rows.');
  return { ...body, emails: body.emails.map((email) => email.trim()) };
}
