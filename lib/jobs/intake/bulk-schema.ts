import { z } from 'zod';

/**
 * The fields of a bulk request: bulk-request.ts reads a body token by token against this schema,
 * and lib/api/schemas.ts registers it for the OpenAPI document (`BulkRequest`). Only the shapes
 * here: the address count is checked first, as the list grows (413 beats a slow parse).
 */
export const bulkFields = z.object({
  emails: z.array(z.string()).min(1, 'must hold at least one address').optional().describe('The addresses (at most EV_MAX_BULK_EMAILS, 1,000,000 by default).'),
  rows: z
    .array(z.array(z.string()).max(1000))
    .min(1, 'must hold at least one row')
    .optional()
    .describe('The original CSV rows, one per address; the download puts them back in front of the verdict columns.'),
  /** With `rows` and no `emails`: which column holds the address (an upload is then sent once, not twice). */
  email_column: z.number().int().min(0).optional().describe('With `rows` and no `emails`: the index of the address column.'),
  columns: z.array(z.string()).max(1000).optional().describe('The header of `rows`.'),
  filename: z.string().max(255).optional().describe('The uploaded file name, shown in the dashboard and the job list.'),
  // The upload's file format, which the download keeps by default (lib/jobs/export/formats.ts).
  delimiter: z.enum([',', ';', '\t', '|']).optional().describe("The upload's delimiter; the download writes the same by default."),
  bom: z.boolean().optional().describe('Whether the upload began with a UTF-8 byte order mark; the download does the same by default.'),
  newline: z.enum(['\r\n', '\n']).optional().describe("The upload's line ends; the download writes the same by default."),
  sheet: z
    .string()
    .min(1)
    .max(31)
    .optional()
    .describe('An .xlsx upload: the sheet it was read from. Its download is an .xlsx workbook with a sheet of that name.'),
});
