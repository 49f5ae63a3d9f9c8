import { WEBHOOK_EVENTS } from '../webhooks/events';
import { z } from 'zod';
import { bulkFields } from '../jobs/intake/bulk-schema';
import { requestSchemas } from './registry';
import { BUCKETS } from '../verifier/vocabulary';
import { RULE_ACTIONS, RULE_MATCHES } from '../verifier/rule-match';
import { AUDIT_ACTIONS } from '../audit/actions';

/** What the routes take: bodies and queries, validated by zod (lib/api/body.ts). Keys' and teams' are in schemas-keys.ts and schemas-teams.ts. */
export * from './schemas-keys';
export * from './schemas-teams';

// No length cap on the address itself: an over-long address is a syntax verdict (200, invalid_email;
// counted in invalid_format_emails in bulk), not a request error. The byte limit bounds the body.
export const emailBody = z
  .object({ email: z.string().describe('The address to verify, as the user typed it.') })
  .register(requestSchemas, { id: 'EmailRequest', description: 'One address.', examples: [{ email: 'valid@example.com' }] });

/** Bulk: the fields are declared with their reader (lib/jobs/intake/bulk-schema.ts); registered here for the OpenAPI document. */
export const bulkBody = bulkFields.register(requestSchemas, {
  id: 'BulkRequest',
  description:
    'Either `emails` (optionally with `rows`, `columns`, `filename`) or `rows` with `email_column` and no `emails`. `delimiter`, `bom`, `newline` and `sheet` describe the uploaded file so the download can match it.',
  examples: [{ emails: ['valid@example.com', 'risky@example.com'] }],
});

const limit = (max: number, fallback: number) => z.coerce.number().int().min(1).max(max).default(fallback);
const boolParam = z.enum(['true', 'false']).transform((v) => v === 'true');
export const bucket = z.enum(BUCKETS).describe('A verdict bucket: `risky` holds risky, catch-all, disposable and role-based.');

export const MAX_STATUS_OFFSET = 10_000;

export const statusQuery = z.object({
  limit: limit(10_000, 100).describe('Results per page in `data.results`.'),
  // skipping costs the database a step per row: pages past MAX_STATUS_OFFSET are the download's (docs/limits.md)
  offset: z.coerce
    .number()
    .int()
    .min(0)
    .max(MAX_STATUS_OFFSET)
    .default(0)
    .describe(`Results to skip, at most ${MAX_STATUS_OFFSET}; the download has every row.`),
  filter: bucket.optional(),
});
export const listQuery = z.object({
  limit: limit(100, 20).describe('Jobs per page.'),
  cursor: z.string().max(500).optional().describe('`next_cursor` of the previous page.'),
});
export const historyQuery = z.object({
  limit: limit(100, 50).describe('Records per page.'),
  // The cursor is a row id (a 32-bit INTEGER column): a longer number must not reach the database.
  cursor: z
    .string()
    .regex(/^\d{1,10}$/, 'not a cursor from this API')
    .refine((v) => Number(v) <= 2_147_483_647, 'not a cursor from this API')
    .optional()
    .describe('`next_cursor` of the previous page.'),
  sandbox: boolParam
    .optional()
    .describe("List sandbox (`true`) or production (`false`) records; default the request's mode. A sandbox request lists only sandbox records."),
  // PostgreSQL text cannot hold NUL: refuse it here rather than fail in the query.
  email: z
    .string()
    .max(1024)
    .refine((v) => !v.includes('\u0000'), 'must not contain NUL')
    .optional()
    .describe('Only records of this exact address.'),
});
export const downloadQuery = z.object({
  filter: z
    .enum([...bucket.options, 'safe'])
    .optional()
    .describe('A bucket, or `safe`: the deliverable addresses (with `catch_all=true` the catch-all ones too).'),
  catch_all: boolParam.optional().describe('With `filter=safe`: add the catch-all addresses.'),
  format: z
    .enum(['original', 'csv', 'xlsx'])
    .optional()
    .describe('`original` (default): as uploaded (delimiter, BOM, line ends; .xlsx for an .xlsx upload); `csv`: plain CSV; `xlsx`: an Excel workbook.'),
  partial: boolParam.optional().describe('`true`: a job that has not completed gives the rows answered so far, marked `X-EV-Partial: true`.'),
  // a link cannot send X-EV-Sandbox: the dashboard's download links name the mode here, as history's `sandbox` does
  sandbox: boolParam.optional().describe("`true`: a sandbox job (default the request's mode). A sandbox request reaches only sandbox jobs."),
  changed: boolParam
    .optional()
    .describe("`true`: a monitor's run gives only the rows whose verdict changed since the run before (or the list); 400 for a job that is not a run."),
});
export const egressQuery = z.object({ refresh: boolParam.optional().describe('Check again now (at most every 10 s) instead of answering from the cache.') });

export const webhookEvent = z.enum(WEBHOOK_EVENTS);

// Monitors (lib/monitors) and the reuse of fresh results (lib/jobs/intake/reuse.ts)
const intervalDays = z.number().int().min(1).max(365).describe('Days between runs: 30, 60 or 90 as the dashboard offers, or any number from 1 to 365.');
export const monitorBody = z
  .object({ list_id: z.string().max(100).describe("A completed job of the caller's mode."), interval_days: intervalDays })
  .strict()
  .register(requestSchemas, { id: 'MonitorRequest', examples: [{ list_id: 'job_abc123', interval_days: 30 }] });
export const monitorUpdateBody = z
  .object({
    paused: z.boolean().optional().describe('`true` pauses, `false` resumes (a run due meanwhile starts at once).'),
    interval_days: intervalDays.optional(),
  })
  .strict()
  .register(requestSchemas, { id: 'MonitorUpdate', examples: [{ paused: true }] });
export const reuseBody = z
  .object({ days: z.number().int().min(1).max(365).nullable().describe('The freshness window in days; `null` turns reuse off.') })
  .strict()
  .register(requestSchemas, { id: 'ReuseSettingsRequest', examples: [{ days: 7 }] });
export const webhookBody = z
  .object({
    url: z.string().url('must be an absolute http(s) URL').max(2048).describe('Where events are POSTed; it must resolve to a public address.'),
    events: z
      .array(webhookEvent)
      .min(1)
      .optional()
      .describe('Default `bulk.completed` and `bulk.failed`; the quota events and `list.expiring` are sent only to endpoints that list them.'),
    description: z.string().max(500).optional(),
  })
  .register(requestSchemas, { id: 'WebhookRequest', examples: [{ url: 'https://hooks.example.com/ev', events: ['bulk.completed'] }] });

// Accounts. Lengths only bound the work (scrypt over a megabyte is slow); the body limit bounds the rest.
export const signupBody = z.object({ email: z.string().max(320), password: z.string().max(1024) });
export const passwordChangeBody = z
  .object({ current_password: z.string().max(1024), new_password: z.string().max(1024) })
  .register(requestSchemas, { id: 'PasswordChangeRequest' });

// Allow and block rules, quota events, usage (docs/rules-and-usage.md).
export const ruleBody = z
  .object({
    action: z.enum(RULE_ACTIONS).describe('`allow`: deliverable (`allowlisted`); `block`: undeliverable (`blocklisted`).'),
    match: z.enum(RULE_MATCHES).describe('What `value` names; the most specific match wins: email, domain, MX host, TLD. At one level a block beats an allow.'),
    value: z
      .string()
      .min(1)
      .max(1024)
      .describe('An address, a domain (exactly; not its subdomains), an MX host or a domain the MX hosts end in, or a TLD (`ru`, `.ru`).'),
  })
  .register(requestSchemas, { id: 'RuleRequest', examples: [{ action: 'block', match: 'domain', value: 'competitor.example' }] });
export const MAX_RULES_PER_IMPORT = 1000;
export const ruleImportBody = z
  .object({
    rules: z
      .array(ruleBody)
      .min(1)
      .max(MAX_RULES_PER_IMPORT)
      .describe(`At most ${MAX_RULES_PER_IMPORT} per request; all are added or none (a bad value is a 400 naming it).`),
  })
  .register(requestSchemas, { id: 'RuleImportRequest' });
const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a day, YYYY-MM-DD');
export const usageQuery = z.object({
  from: day.optional().describe('First day (UTC), default 29 days before `to`.'),
  to: day.optional().describe('Last day (UTC), inclusive; default today. At most 366 days at once.'),
  format: z.enum(['json', 'csv']).optional().describe('`csv`: the same rows as a CSV file (with `by=member`: the split, a row per person and day).'),
  by: z.enum(['member']).optional().describe('`member`: also split the charged checks by the person they counted against (`members`).'),
});
export const quotaWarningBody = z
  .object({
    warning_below: z
      .number()
      .int()
      .min(0)
      .max(1_000_000_000)
      .nullable()
      .describe("Send `quota.warning` when credits plus today's free checks fall below this; null: the installation's default (EV_QUOTA_WARNING_BELOW)."),
  })
  .register(requestSchemas, { id: 'QuotaWarningRequest', examples: [{ warning_below: 500 }] });
export const retentionBody = z
  .object({
    retention_days: z
      .number()
      .int()
      .min(1)
      .max(36_500)
      .nullable()
      .describe(
        "Keep the account's lists, results and history this many days (at most EV_RETENTION_DAYS when the installation sets it); null: the installation's default.",
      ),
  })
  .register(requestSchemas, { id: 'RetentionRequest', examples: [{ retention_days: 30 }] });

// The audit log (docs/security.md, "Audit log").
const instant = z.iso.datetime({ offset: true }).transform((v) => new Date(v));
export const auditQuery = z.object({
  actor: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,80}$/, 'must be a user id or a key id')
    .optional()
    .describe('Only the rows of this person (user id) or key (key id).'),
  action: z.enum(AUDIT_ACTIONS).optional().describe('Only this action.'),
  from: instant.optional().describe('Rows at or after this time (ISO 8601).'),
  to: instant.optional().describe('Rows at or before this time (ISO 8601).'),
  limit: limit(200, 50).describe('Rows per page.'),
  cursor: z.string().max(200).optional().describe('`next_cursor` of the previous page.'),
  format: z.enum(['json', 'csv']).optional().describe('`csv`: every row the filters select, as a CSV file (no paging).'),
});
