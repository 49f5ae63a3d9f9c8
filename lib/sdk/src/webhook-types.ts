// Webhook endpoints, their deliveries and the events they carry (/v1/webhooks…), as the OpenAPI
// document states them; lib/sdk/test/types.test.ts keeps them equal to the server's schemas.
import type { JobSummary } from './job-types.ts';
import type { QuotaExceededEvent, QuotaWarningEvent } from './rules-types.ts';
import type { ListExpiringEvent } from './data-types.ts';
import type { ListChangedEvent } from './monitor-types.ts';

export type WebhookEvent = 'bulk.completed' | 'bulk.failed' | 'quota.warning' | 'quota.exceeded' | 'list.expiring' | 'list.changed';
export type EventType = WebhookEvent | 'webhook.test';

export interface Webhook {
  id: string;
  url: string;
  events: WebhookEvent[];
  description: string;
  created_at: string;
  disabled: boolean;
}

export interface WebhookCreated extends Webhook {
  /** the signing secret (`whsec_…`), shown once */
  secret: string;
}

export interface WebhookInput {
  url: string;
  events?: WebhookEvent[];
  description?: string;
}

export interface Delivery {
  id: string;
  event_type: EventType;
  event_id: string;
  state: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  created_at: string;
  attempt_log: { attempt: number; status: number | null; error: string | null; duration_ms: number; at: string }[];
}

export interface DeliverySent {
  success: true;
  event_id?: string;
  delivery_id: string;
  state: Delivery['state'];
  last_status: number | null;
}

interface EventBase {
  /** also `webhook-id`: the same on every retry */
  id: string;
  created_at: string;
  sandbox: boolean;
}

export interface BulkCompletedEvent extends EventBase {
  type: 'bulk.completed';
  data: { job_id: string; status: 'completed'; total_emails: number; summary: JobSummary; download_url: string; completed_at: string };
}

export interface BulkFailedEvent extends EventBase {
  type: 'bulk.failed';
  data: { job_id: string; status: 'failed'; total_emails: number; summary: JobSummary; error: string; failed_at: string };
}

export interface WebhookTestEvent extends EventBase {
  type: 'webhook.test';
  data: { message: string };
}

export type WebhookPayload =
  | BulkCompletedEvent
  | BulkFailedEvent
  | QuotaWarningEvent
  | QuotaExceededEvent
  | ListExpiringEvent
  | ListChangedEvent
  | WebhookTestEvent;
