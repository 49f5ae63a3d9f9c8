import { z } from 'zod';
import { EVENT_TYPES } from '../webhooks/events';
import { responseSchemas as named } from './registry';
import { webhookEvent } from './schemas';
import { count, eventBase, success, timestamp } from './responses-common';

/** Webhook endpoints, their deliveries and the test event (docs/webhooks.md). */

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

export const webhookTestEvent = z
  .object({ ...eventBase, type: z.literal('webhook.test'), data: z.object({ message: z.string() }) })
  .register(named, { id: 'WebhookTestEvent' });
