import { z } from 'zod';
import { ERROR_STATUS, type ErrorCode } from '../errors/app-error';
import { REASONS, RISK_LEVELS, SUB_REASONS, VERDICT_STATUSES } from '../verifier/vocabulary';
import { responseSchemas as named } from './registry';
import { webhookEvent } from './schemas';
import { KEY_TYPES, SCOPES } from '../accounts/scopes';
import { ROLES } from '../accounts/roles';
import { EVENT_TYPES } from '../webhooks/events';

/**
 * What the API answers, as zod schemas: the OpenAPI document (lib/api/openapi.ts) is generated from
 * them, and the API tests validate every response they receive against that document.
 */

const count = z.number().int().min(0);
const percent = z.number().int().min(0).max(100);
// `format` as metadata: the document states it and the tests check it (ajv-formats); zod's own
// ISO check would add a long regular expression to every timestamp of the document.
const timestamp = z.string().meta({ format: 'date-time', description: 'ISO 8601, UTC.' });
const success = z.literal(true);
const cursor = z.string().nullable().describe('Pass as `cursor` for the next page; null on the last page.');

export const riskLevel = z.enum(RISK_LEVELS).register(named, { id: 'RiskLevel' });
export const reason = z.enum(REASONS).register(named, { id: 'Reason', description: 'Why the verdict is what it is.' });
export const verdictStatus = z.enum(VERDICT_STATUSES).register(named, { id: 'VerdictStatus' });
const score = percent.describe('0-100: deliverable ≥ 80, undeliverable 0.');
export const subReason = z.enum(SUB_REASONS).register(named, {
  id: 'SubReason',
  description: 'The finer reason beside `reason`: every `unknown` has one, and so do verdicts whose reason alone would mislead (docs/verdicts.md).',
});
const mailboxProvider = z
  .string()
  .nullable()
  .describe(
    "Who receives the mail, from the domain's MX hosts: `google`, `microsoft`, `yahoo`, `apple`, …, or a gateway (`proofpoint`, `mimecast`, …); null when unknown.",
  );

const ruleId = z
  .string()
  .nullable()
  .describe('The allow or block rule that decided the verdict (`reason` `allowlisted` / `blocklisted`; GET /v1/rules); null otherwise.');

export const evidence = z
  .object({
    mx_host: z.string().nullable(),
    smtp_code: z.number().int().nullable(),
    smtp_enhanced_code: z.string().nullable(),
    smtp_message: z.string().nullable(),
    smtp_failure: z.string().nullable().describe('Why the conversation ended without an answer (`timeout`, `protocol: …`).'),
    attempts: count,
    tls: z.boolean().describe('The conversation was upgraded with STARTTLS.'),
    dns_failure: z.string().nullable().describe('What DNS said when it decided the verdict (`mx.example.com: NXDOMAIN`, `resolver denies gmail.com`).'),
    control_code: z.number().int().nullable().describe('The reply to a made-up address of the same domain, asked beside the address (docs/verdicts.md).'),
    control_enhanced_code: z.string().nullable(),
    control_message: z.string().nullable(),
    postmaster_code: z
      .number()
      .int()
      .nullable()
      .describe('The reply to postmaster@ the domain, asked when the address was refused: a server that refuses postmaster too refuses us (docs/verdicts.md).'),
    postmaster_message: z.string().nullable(),
  })
  .register(named, { id: 'Evidence', description: 'What the SMTP conversation showed (production); null fields were not reached.' });

export const singleResult = z
  .object({
    email: z.string(),
    normalized_email: z
      .string()
      .nullable()
      .describe('The local part in NFC with its case kept, the domain per UTS #46; null when the address cannot be normalised.'),
    valid: z.boolean(),
    deliverable: z.boolean(),
    risk_level: riskLevel,
    provider: z.string(),
    mailbox_provider: mailboxProvider,
    response_time: count.describe('Milliseconds.'),
    confidence: percent,
    details: z.object({ syntax_valid: z.boolean(), domain_exists: z.boolean(), mx_record: z.boolean(), smtp_valid: z.boolean() }),
    reason,
    sub_reason: subReason.nullable(),
    cached: z.boolean(),
    status: verdictStatus,
    score,
    disposable: z.boolean(),
    role: z.boolean(),
    free: z.boolean(),
    catch_all: z.boolean(),
    did_you_mean: z.string().nullable().describe('A likely correction of a misspelt domain.'),
    evidence: evidence.nullable(),
    rule_id: ruleId,
    sandbox: z.boolean(),
  })
  .register(named, { id: 'SingleResult' });

export const verifyResult = singleResult
  .extend({ is_disposable: z.boolean() })
  .register(named, { id: 'VerifyResult', description: "The SDK's shape: `email`, `status`, `score`, `is_disposable`, then every field of the single result." });

export const bulkItem = z
  .object({
    email: z.string(),
    valid: z.boolean(),
    deliverable: z.boolean(),
    risk_level: riskLevel,
    reason,
    cached: z.boolean(),
    status: verdictStatus,
    score,
    sub_reason: subReason.nullable(),
    mailbox_provider: mailboxProvider,
    rule_id: ruleId,
    checked_at: timestamp.describe('When the address was last checked: the time of the result it repeats when it was reused.'),
    reused: z.boolean().describe('Answered from an earlier result of the account (its time is `checked_at`), not charged.'),
  })
  .register(named, { id: 'BulkItem' });

export const jobSummary = z
  .object({
    total: count,
    duplicates: count.describe('Rows that repeat an earlier mailbox: not verified, not charged.').optional(),
    valid: count,
    invalid: count,
    unknown: count.describe('Answers with status `unknown`.'),
    failed: count.describe('Addresses that got no result.'),
    deliverable: count,
    undeliverable: count,
    risky: count,
  })
  .register(named, { id: 'JobSummary' });

const formatCounts = {
  total_emails: count,
  valid_emails: count.describe('Addresses of valid syntax.'),
  invalid_format_emails: count.describe('Addresses of invalid syntax; `valid_emails + invalid_format_emails = total_emails`.'),
  duplicate_emails: count.describe('Rows that repeat an earlier mailbox of the list (docs/lists.md, "Duplicates"): verified and charged once.'),
};

export const bulkInstant = z
  .object({
    success,
    instant: z.literal(true),
    job_id: z.string(),
    status: z.literal('completed'),
    ...formatCounts,
    results: z.array(bulkItem),
    summary: jobSummary,
    message: z.string(),
  })
  .register(named, { id: 'BulkInstant', description: '10 or fewer addresses: verified at once (a completed job is recorded too).' });
export const bulkQueued = z
  .object({
    success,
    job_id: z.string(),
    status: z.literal('queued'),
    ...formatCounts,
    reused_emails: count.describe(
      "Addresses answered from the account's results within its freshness window (GET /v1/account/reuse): not reserved, not charged.",
    ),
    estimated_time: z.string().describe('From the throughput of recent jobs and the work queued ahead, e.g. "about 2 minutes".'),
    message: z.string(),
  })
  .register(named, { id: 'BulkQueued', description: 'More than 10 addresses: a queued job.' });
export const bulkSubmitted = z.union([bulkInstant, bulkQueued]).register(named, { id: 'BulkSubmitted' });

export const jobState = z.enum(['queued', 'processing', 'completed', 'cancelled', 'failed']).register(named, { id: 'JobState' });

export const jobStatus = z
  .object({
    success,
    job_id: z.string(),
    status: jobState,
    progress: percent,
    processed_emails: count,
    total_emails: count,
    duplicate_emails: count,
    waiting: z
      .object({
        addresses: count.describe("Addresses handed back to be asked again later (greylisting, a 4xx, a server's back-off)."),
        next_try_at: timestamp.describe('When the first of them is asked again.'),
      })
      .nullable()
      .optional()
      .describe('Only while `queued` or `processing`: what the job waits for, or null.'),
    sandbox: z.boolean(),
    filename: z.string().nullable(),
    created_at: timestamp,
    monitor_id: z.string().nullable().describe("A monitor's run: its monitor (GET /v1/monitors/{id}); null for a list submitted by hand."),
    previous_job_id: z
      .string()
      .nullable()
      .describe("A monitor's run: the run (or list) it is compared with; `?changed=true` on the download gives the rows that changed."),
    error: z.string().nullable().optional().describe('Why the job failed (only when `failed`).'),
    data: z
      .object({
        results: z.array(bulkItem).describe('One page: `limit`, `offset`, `filter`.'),
        results_total: count.describe('Results matching `filter`.'),
        summary: jobSummary,
        providers: z
          .object({ google: count, microsoft: count, yahoo: count, other: count })
          .describe('Verified mailboxes by the provider that receives their mail.'),
        completed_at: timestamp,
      })
      .optional()
      .describe('Only when `completed`.'),
  })
  .register(named, { id: 'JobStatus' });

export const jobListItem = z
  .object({
    job_id: z.string(),
    status: jobState,
    sandbox: z.boolean(),
    instant: z.boolean(),
    ...formatCounts,
    processed_emails: count,
    progress: percent,
    filename: z.string().nullable(),
    created_at: timestamp,
    completed_at: timestamp.nullable(),
  })
  .register(named, { id: 'JobListItem' });
export const jobList = z.object({ success, data: z.array(jobListItem), next_cursor: cursor }).register(named, { id: 'JobList' });
export const jobCancelled = z.object({ success, job_id: z.string(), status: z.literal('cancelled') }).register(named, { id: 'JobCancelled' });

export const historyRecord = z
  .object({
    id: z.string(),
    email: z.string(),
    status: verdictStatus,
    valid: z.boolean(),
    deliverable: z.boolean(),
    risk_level: riskLevel,
    reason,
    score,
    sandbox: z.boolean(),
    source: z.enum(['single', 'bulk']),
    job_id: z.string().nullable(),
    created_at: timestamp,
  })
  .register(named, { id: 'HistoryRecord' });
export const historyPage = z.object({ success, data: z.array(historyRecord), next_cursor: cursor }).register(named, { id: 'HistoryPage' });

export const webhook = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(webhookEvent),
    description: z.string(),
    created_at: timestamp,
    disabled: z.boolean().describe('A receiver that answered 410 disables its endpoint.'),
  })
  .register(named, { id: 'Webhook' });
export const webhookCreated = webhook
  .extend({
    secret: z
      .string()
      .regex(/^whsec_/)
      .describe('The signing secret, shown once.'),
  })
  .register(named, { id: 'WebhookCreated' });
export const webhookList = z.object({ success, data: z.array(webhook) }).register(named, { id: 'WebhookList' });
export const webhookDeleted = z.object({ success, id: z.string(), deleted: z.literal(true) }).register(named, { id: 'WebhookDeleted' });

const deliveryState = z.enum(['pending', 'succeeded', 'failed']).register(named, { id: 'DeliveryState' });
export const eventType = z.enum(EVENT_TYPES).register(named, { id: 'EventType' });
export const delivery = z
  .object({
    id: z.string(),
    event_type: eventType,
    event_id: z.string(),
    state: deliveryState,
    attempts: count,
    last_status: z.number().int().nullable(),
    last_error: z.string().nullable(),
    next_attempt_at: timestamp.nullable(),
    created_at: timestamp,
    attempt_log: z.array(
      z.object({ attempt: z.number().int().min(1), status: z.number().int().nullable(), error: z.string().nullable(), duration_ms: count, at: timestamp }),
    ),
  })
  .register(named, { id: 'Delivery' });
export const deliveryList = z.object({ success, data: z.array(delivery).describe('The latest 50, newest first.') }).register(named, { id: 'DeliveryList' });
export const deliverySent = z
  .object({ success, event_id: z.string().optional(), delivery_id: z.string(), state: deliveryState, last_status: z.number().int().nullable() })
  .register(named, { id: 'DeliverySent', description: 'The outcome of sending it now.' });

export const apiKey = z
  .object({
    id: z.string(),
    name: z.string(),
    prefix: z.string().describe('The first characters of the key, to tell keys apart.'),
    type: z.enum(KEY_TYPES).describe('`secret` for servers, `publishable` for web pages.'),
    scopes: z.array(z.enum(SCOPES)).describe('What the key may call; a key made without a list holds every scope.'),
    allowed_ips: z.array(z.string()).nullable().describe('Addresses or CIDR blocks the key works from; null: any.'),
    allowed_origins: z.array(z.string()).nullable().describe('Publishable keys: the page origins allowed to use it.'),
    expires_at: timestamp.nullable(),
    rate_limits: z
      .object({
        per_visitor_per_minute: z.number().int().min(1),
        per_key_per_minute: z.number().int().min(1),
        checks_per_day: z.number().int().min(1).describe('Charged checks a UTC day; past it 429 `rate_limit` until midnight UTC.'),
        checks_today: z.number().int().min(0).describe('Charged checks so far today (UTC).'),
      })
      .nullable()
      .describe("Publishable keys: the limits in force (the key's own or the installation's defaults) and today's charged checks."),
    role: z.enum(ROLES).describe('The highest role the key acts with (docs/teams.md).'),
    created_by: z
      .object({ user_id: z.string(), email: z.string(), member: z.boolean().describe('false: its maker has left the organisation; the key stays its.') })
      .nullable()
      .describe('Who made the key; null: made by a script.'),
    created_at: timestamp,
    last_used_at: timestamp.nullable(),
    revoked_at: timestamp.nullable(),
  })
  .register(named, { id: 'ApiKey' });
export const apiKeyCreated = apiKey.extend({ key: z.string().describe('The key, shown once (stored as SHA-256).') }).register(named, { id: 'ApiKeyCreated' });
export const apiKeyList = z.object({ success, data: z.array(apiKey) }).register(named, { id: 'ApiKeyList' });
export const apiKeyRevoked = z.object({ success, id: z.string(), revoked: z.literal(true) }).register(named, { id: 'ApiKeyRevoked' });

export const account = z
  .object({ email: z.string(), plan: z.string(), free_remaining_today: count, used_today: count, credits: z.number().int() })
  .register(named, { id: 'Account' });

export const accountMessage = z.object({ success, message: z.string() }).register(named, { id: 'AccountMessage' });

const checkStatus = z.enum(['pass', 'warn', 'fail']);
const egressChecks = {
  status: checkStatus.describe('The worst check.'),
  checked_at: timestamp,
  egress: z.string().describe('The egress reported on: its politeness budget key (`ip:<address>`, `socks:<host>:<port>` or `default`).'),
  source_ip: z.string().nullable().describe('EV_SMTP_SOURCE_IP: the local address its SMTP connections bind to.'),
  egress_ip: z.string().nullable(),
  helo_name: z.string(),
  checks: z.array(
    z.object({
      name: z.enum(['port25', 'egress_ip', 'rdns', 'dnsbl', 'resolver', 'identity', 'refusals']),
      status: checkStatus,
      message: z.string(),
      remedy: z.string().nullable(),
    }),
  ),
};
export const egressReport = z
  .object({
    success,
    data: z.object({
      ...egressChecks,
      policy: z.enum(['warn', 'pause', 'off']),
      production_paused: z.boolean(),
      egresses: z.array(z.object(egressChecks)).describe('Every egress of the fleet as its own processes last checked it, this one included.'),
    }),
  })
  .register(named, { id: 'EgressReport' });

export const errorCode = z.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]]).register(named, { id: 'ErrorCode' });
export const errorEnvelope = z
  .object({
    error: errorCode,
    message: z.string().describe('For people; match on `error`.'),
    param: z.string().optional().describe('`invalid_request`, `idempotency_key_reused`: the field, query parameter or header at fault.'),
    limit: z.number().int().optional().describe('`too_many_emails`, `payload_too_large`, `limit_reached`, `rate_limit`: the limit passed.'),
    retry_after: z.number().int().min(1).optional().describe('`rate_limit`: seconds to wait (also `Retry-After`).'),
    scope: z.enum(SCOPES).optional().describe('`insufficient_scope`: the scope the operation needs.'),
    role: z.enum(ROLES).optional().describe('`insufficient_role`: the role the operation needs.'),
    required: count.optional().describe('`insufficient_credits`, `member_cap_reached`: verifications the request needs.'),
    free_remaining_today: count.optional().describe('`insufficient_credits`.'),
    credits: z.number().int().optional().describe('`insufficient_credits`.'),
    period: z.enum(['day', 'month']).optional().describe('`member_cap_reached`: the cap passed, per UTC day or per calendar month (UTC).'),
    cap: count.optional().describe('`member_cap_reached`: the cap, in charged checks.'),
    used: count.optional().describe('`member_cap_reached`: charged checks the person already spent in the period.'),
    resets_at: timestamp.optional().describe('`member_cap_reached`: when the period ends (midnight UTC, or the first of the next month).'),
  })
  .register(named, { id: 'Error', description: 'The one error envelope of every /v1 answer of status 400 or more.' });

// Webhook payloads: what the dispatcher POSTs to a receiver (lib/webhooks/outbox.ts builds them).
const eventBase = { id: z.string().describe('Also sent as `webhook-id`; the same on every retry.'), created_at: timestamp, sandbox: z.boolean() };
export const bulkCompletedEvent = z
  .object({
    ...eventBase,
    type: z.literal('bulk.completed'),
    data: z.object({
      job_id: z.string(),
      status: z.literal('completed'),
      total_emails: count,
      summary: jobSummary,
      download_url: z.string().describe('Absolute when EV_PUBLIC_URL is set.'),
      completed_at: timestamp,
    }),
  })
  .register(named, { id: 'BulkCompletedEvent' });
export const bulkFailedEvent = z
  .object({
    ...eventBase,
    type: z.literal('bulk.failed'),
    data: z.object({ job_id: z.string(), status: z.literal('failed'), total_emails: count, summary: jobSummary, error: z.string(), failed_at: timestamp }),
  })
  .register(named, { id: 'BulkFailedEvent' });
export const webhookTestEvent = z
  .object({ ...eventBase, type: z.literal('webhook.test'), data: z.object({ message: z.string() }) })
  .register(named, { id: 'WebhookTestEvent' });

// Shared with responses-rules.ts (the rules, quota and usage answers).
export { count, eventBase, success, timestamp };
