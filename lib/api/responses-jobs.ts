import { z } from 'zod';
import { responseSchemas as named } from './registry';
import { JOB_STATES } from '../jobs/states';
import {
  count,
  cursor,
  eventBase,
  mailboxProvider,
  percent,
  reason,
  riskLevel,
  ruleId,
  score,
  subReason,
  success,
  timestamp,
  verdictStatus,
} from './responses-common';

/** The answers and events of lists as jobs, and the history of checks (docs/lists.md). */

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

export const jobState = z.enum(JOB_STATES).register(named, { id: 'JobState' });

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
