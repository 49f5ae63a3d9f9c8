import { ApiError, invalidRequest } from '../api/errors';
import { validate } from '../api/body';
import { bulkBody } from '../api/schemas';
import { env } from '../env';

/**
 * Validates a bulk body: size limit first (413), then shape (400). Addresses come as `emails`, or
 * from `rows` and `email_column` (an uploaded CSV, sent once); rows must match emails one to one.
 */
export function parseBulkRequest(input: unknown) {
  const given = input as { emails?: unknown; rows?: unknown } | null;
  const list = Array.isArray(given?.emails) ? given.emails : Array.isArray(given?.rows) ? given.rows : null;
  const max = env().EV_MAX_BULK_EMAILS;
  if (list && list.length > max) {
    throw new ApiError('too_many_emails', `A bulk request may hold at most ${max} emails; this one has ${list.length}.`, { limit: max });
  }
  const body = validate(bulkBody, input);
  if (body.rows && !body.columns) throw invalidRequest('columns', 'columns (the header of rows) is required with rows.');
  let emails = body.emails;
  if (!emails) {
    const column = body.email_column;
    if (!body.rows || column === undefined) throw invalidRequest('emails', 'emails: required (or rows with columns and email_column).');
    if (column >= body.columns!.length) throw invalidRequest('email_column', 'email_column must be the index of one of columns.');
    emails = body.rows.map((row) => row[column] ?? '');
  }
  if (body.rows && body.rows.length !== emails.length) {
    throw invalidRequest('rows', 'rows must hold one entry per email, in the same order.');
  }
  return { emails: emails.map((email) => email.trim()), rows: body.rows, columns: body.columns, filename: body.filename };
}
