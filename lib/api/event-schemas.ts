import type { z } from 'zod';
import type { EventType } from '../webhooks/events';
import { listExpiringEvent } from './responses-data';
import { bulkCompletedEvent, bulkFailedEvent } from './responses-jobs';
import { listChangedEvent } from './responses-monitors';
import { quotaExceededEvent, quotaWarningEvent } from './responses-rules';
import { webhookTestEvent } from './responses-webhooks';
import type { DomainOf } from './shape';

/**
 * Each event type's payload schema and summary, written once: `buildEvent` (lib/webhooks/outbox.ts)
 * shapes an event's camelCase domain value through the schema, as an answer is shaped through its
 * operation's response schema (lib/api/answer.ts), and the OpenAPI document's `webhooks`
 * (lib/api/openapi.ts) is built from this map. It does not compile while an event type has no entry.
 */
export const EVENTS = {
  'bulk.completed': { schema: bulkCompletedEvent, summary: 'A job completed' },
  'bulk.failed': { schema: bulkFailedEvent, summary: 'A job failed' },
  'quota.warning': { schema: quotaWarningEvent, summary: "Credits plus today's free checks fell below the account's threshold (once per crossing)" },
  'quota.exceeded': { schema: quotaExceededEvent, summary: 'A request was refused for want of credits (at most once an hour)' },
  'list.expiring': { schema: listExpiringEvent, summary: 'A list is deleted by retention in 7 days, then in 1 day (docs/retention.md)' },
  'list.changed': { schema: listChangedEvent, summary: "A monitor's run completed with rows whose verdict changed" },
  'webhook.test': { schema: webhookTestEvent, summary: 'A test event (POST /v1/webhooks/{id}/test)' },
} as const satisfies Record<EventType, { schema: z.ZodType; summary: string }>;

type EventSchema<T extends EventType> = (typeof EVENTS)[T]['schema'];

/** What domain code gives for an event's `data`: its schema's input, keys camelCased (lib/api/shape.ts). */
export type EventData<T extends EventType> = DomainOf<z.input<EventSchema<T>>['data']>;
