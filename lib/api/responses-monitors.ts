import { z } from 'zod';
import { VERDICT_STATUSES } from '../verifier/vocabulary';
import { responseSchemas as named } from './registry';
import { count, eventBase, success, timestamp } from './responses-common';

/** The answers and events of monitors and of the reuse of fresh results (docs/lists.md, "Monitors", "Reuse"). */

const change = z
  .object({ from: z.enum(VERDICT_STATUSES), to: z.enum(VERDICT_STATUSES), count: count.describe('Rows (duplicates included) that went from `from` to `to`.') })
  .register(named, { id: 'VerdictChange' });

export const monitor = z
  .object({
    id: z.string(),
    list_id: z.string().describe('The list (a completed job) re-verified.'),
    interval_days: count,
    paused: z.boolean(),
    sandbox: z.boolean().describe('The mode of the list and its runs.'),
    next_run_at: timestamp.describe('When the next run is due (a paused monitor starts it when resumed, at once if it is past).'),
    latest_job_id: z.string().nullable().describe("The latest run's job; null before the first."),
    last_skipped_at: timestamp.nullable().describe('The last period skipped (`last_skip_reason` says why: `insufficient_credits`, `list_gone`).'),
    last_skip_reason: z.string().nullable(),
    created_at: timestamp,
  })
  .register(named, { id: 'Monitor' });
export const monitorCreated = monitor.extend({ success }).register(named, { id: 'MonitorCreated' });
export const monitorList = z.object({ success, data: z.array(monitor).describe('Newest first.') }).register(named, { id: 'MonitorList' });
export const monitorRun = z
  .object({
    job_id: z.string(),
    status: z.string(),
    started_at: timestamp,
    completed_at: timestamp.nullable(),
    deliverable: count,
    undeliverable: count,
    risky: count,
    unknown: count,
    changed_emails: count.nullable().describe('Rows whose verdict changed against the run before; null for the list itself and runs not completed.'),
    changes: z.array(change).describe('Per old → new verdict.'),
  })
  .register(named, { id: 'MonitorRun' });
export const monitorDetail = monitor
  .extend({ success, runs: z.array(monitorRun).describe("The list, then each run, oldest first: the list's health over time.") })
  .register(named, { id: 'MonitorDetail' });
export const monitorDeleted = z.object({ success, id: z.string(), deleted: z.literal(true) }).register(named, { id: 'MonitorDeleted' });

export const listChangedEvent = z
  .object({
    ...eventBase,
    type: z.literal('list.changed'),
    data: z.object({
      monitor_id: z.string(),
      list_id: z.string().nullable(),
      job_id: z.string().describe('The run.'),
      previous_job_id: z.string(),
      total_emails: count,
      changed_emails: count,
      changes: z.array(change),
      changed_download_url: z.string().describe("The changed rows only, with the upload's columns."),
      completed_at: timestamp,
    }),
  })
  .register(named, { id: 'ListChangedEvent' });

export const reuseSettings = z
  .object({ success, enabled: z.boolean(), days: count.nullable().describe('The freshness window; null when reuse is off.') })
  .register(named, { id: 'ReuseSettings' });
