import { z } from 'zod';

// No length cap on the address itself: an over-long address is a syntax verdict (200, invalid_email;
// counted in invalid_format_emails in bulk), not a request error. The byte limit bounds the body.
export const emailBody = z.object({ email: z.string() });

/** Bulk: only the array shape here; its size limits are checked first (413 beats a slow parse). */
export const bulkBody = z.object({
  emails: z.array(z.string()).min(1, 'must hold at least one address').optional(),
  rows: z.array(z.array(z.string())).min(1, 'must hold at least one row').optional(),
  /** With `rows` and no `emails`: which column holds the address (an upload is then sent once, not twice). */
  email_column: z.number().int().min(0).optional(),
  columns: z.array(z.string()).max(1000).optional(),
  filename: z.string().max(255).optional(),
  // The upload's file format, which the download keeps by default (lib/jobs/formats.ts).
  delimiter: z.enum([',', ';', '\t', '|']).optional(),
  bom: z.boolean().optional(),
  newline: z.enum(['\r\n', '\n']).optional(),
  /** an .xlsx upload: the name of the sheet it was read from (its download is .xlsx, that sheet's name) */
  sheet: z.string().min(1).max(31).optional(),
});

const limit = (max: number, fallback: number) => z.coerce.number().int().min(1).max(max).default(fallback);
const boolParam = z.enum(['true', 'false']).transform((v) => v === 'true');
export const bucket = z.enum(['deliverable', 'undeliverable', 'risky', 'unknown']);

export const statusQuery = z.object({
  limit: limit(10_000, 100),
  offset: z.coerce.number().int().min(0).default(0),
  filter: bucket.optional(),
});
export const listQuery = z.object({ limit: limit(100, 20), cursor: z.string().max(500).optional() });
export const historyQuery = z.object({
  limit: limit(100, 50),
  // The cursor is a row id (a 32-bit INTEGER column): a longer number must not reach the database.
  cursor: z.string().regex(/^\d{1,10}$/, 'not a cursor from this API').refine((v) => Number(v) <= 2_147_483_647, 'not a cursor from this API').optional(),
  sandbox: boolParam.optional(),
  // PostgreSQL text cannot hold NUL: refuse it here rather than fail in the query.
  email: z.string().max(1024).refine((v) => !v.includes('\u0000'), 'must not contain NUL').optional(),
});
export const downloadQuery = z.object({
  /** a bucket, or `safe`: the deliverable addresses (with `catch_all=true` the catch-all ones too) */
  filter: z.enum([...bucket.options, 'safe']).optional(),
  catch_all: boolParam.optional(),
  /** original (default): as uploaded (delimiter, BOM, line ends; .xlsx for an .xlsx upload); csv: plain CSV; xlsx: Excel */
  format: z.enum(['original', 'csv', 'xlsx']).optional(),
  /** true: a job that has not completed gives the rows answered so far (marked X-EV-Partial: true) */
  partial: boolParam.optional(),
});
export const egressQuery = z.object({ refresh: boolParam.optional() });

export const webhookBody = z.object({
  url: z.string().url('must be an absolute http(s) URL').max(2048),
  events: z.array(z.enum(['bulk.completed', 'bulk.failed'])).min(1).optional(),
  description: z.string().max(500).optional(),
});
export const keyBody = z.object({ name: z.string().max(100).optional() });
