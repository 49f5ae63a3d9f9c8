/**
 * The events a webhook endpoint can subscribe to, written once: the request and response schemas
 * (lib/api/schemas.ts, lib/api/responses.ts), each event's payload schema (lib/api/event-schemas.ts),
 * the OpenAPI document's `webhooks`, the outbox and the dashboard's Webhooks card read them from
 * here. No Node imports: the dashboard reads this. The SDK keeps its own copy (it is published
 * alone); lib/webhooks/events.test.ts checks the two agree.
 */
export const JOB_EVENTS = ['bulk.completed', 'bulk.failed'] as const;
/** Sent only to endpoints that list them: an endpoint built for job events is not sent new kinds (docs/rules-and-usage.md). */
export const QUOTA_EVENTS = ['quota.warning', 'quota.exceeded'] as const;
export const LIST_EVENTS = ['list.expiring', 'list.changed'] as const;

export const WEBHOOK_EVENTS = [...JOB_EVENTS, ...QUOTA_EVENTS, ...LIST_EVENTS] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** What an endpoint made without an event list receives. */
export const DEFAULT_EVENTS: readonly WebhookEvent[] = JOB_EVENTS;

/** Sent to one endpoint on request (POST /v1/webhooks/{id}/test), whatever it subscribed to. */
export const TEST_EVENT = 'webhook.test';

/** Every event type a delivery can carry. */
export const EVENT_TYPES = [...WEBHOOK_EVENTS, TEST_EVENT] as const;
export type EventType = (typeof EVENT_TYPES)[number];
