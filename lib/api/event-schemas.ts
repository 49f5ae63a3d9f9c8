import type { z } from 'zod';
import type { EventType } from '../webhooks/events';
import { listExpiringEvent } from './responses-data';
import { bulkCompletedEvent, bulkFailedEvent } from './responses-jobs';
import { listChangedEvent } from './responses-monitors';
import { quotaExceededEvent, quotaWarningEvent } from './responses-rules';
import { webhookTestEvent } from './responses-webhooks';
import type { DomainOf } from './shape';

/**
 * Each event type's payload schema, written once: `buildEvent` (lib/webhooks/outbox.ts) shapes an
 * event's camelCase domain value through it, as an answer is shaped through its operation's
 * response schema (lib/api/answer.ts). The OpenAPI document's `webhooks` (lib/api/openapi.ts)
 * names the same schemas; the map does not compile while an event type has none.
 */
export const EVENT_SCHEMAS = {
  'bulk.completed': bulkCompletedEvent,
  'bulk.failed': bulkFailedEvent,
  'quota.warning': quotaWarningEvent,
  'quota.exceeded': quotaExceededEvent,
  'list.expiring': listExpiringEvent,
  'list.changed': listChangedEvent,
  'webhook.test': webhookTestEvent,
} as const satisfies Record<EventType, z.ZodType>;

type EventSchema<T extends EventType> = (typeof EVENT_SCHEMAS)[T];

/** What domain code gives for an event's `data`: its schema's input, keys camelCased (lib/api/shape.ts). */
export type EventData<T extends EventType> = DomainOf<z.input<EventSchema<T>>['data']>;
