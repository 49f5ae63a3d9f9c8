import type { Db } from '../db/client';
import { env } from '../config/env';
import { newId } from '../db/ids';
import { EVENTS, type EventData } from '../api/event-schemas';
import { shapeChecked } from '../api/shape';
import { TEST_EVENT, type EventType } from './events';

export type { EventType } from './events';

export interface EventPayload {
  id: string;
  type: EventType;
  created_at: string;
  sandbox: boolean;
  data: Record<string, unknown>;
}

/**
 * The one place an event is made: its camelCase domain value shaped through the type's payload
 * schema (lib/api/event-schemas.ts, lib/api/shape.ts), fields in the order `data` gives them.
 * Outside production the payload is checked against the schema, as answers are (lib/api/answer.ts):
 * a field it does not declare, or a value it refuses, throws naming it.
 */
export function buildEvent<T extends EventType>(type: T, sandbox: boolean, data: EventData<T>): EventPayload {
  const event = { id: newId('evt'), type, createdAt: new Date(), sandbox, data };
  return shapeChecked(EVENTS[type].schema, event, `${type}: the event`, 'its payload schema') as EventPayload;
}

export function downloadUrl(jobId: string): string {
  return `${env().EV_PUBLIC_URL.replace(/\/$/, '')}/v1/verify/bulk/download/${jobId}`;
}

type Tx = Pick<Db, 'webhook' | 'webhookDelivery'>;

/**
 * Writes one delivery per subscribed endpoint, in the caller's transaction (the outbox): the event
 * exists exactly when the state change it reports does. The dispatcher sends it.
 */
export async function enqueueEvent(tx: Tx, userId: string, event: EventPayload, onlyWebhookId?: string): Promise<string[]> {
  // At most the per-account cap of endpoints (the oldest), so one event's fan-out stays bounded even
  // for an account that gathered more webhooks before the cap existed.
  const hooks = await tx.webhook.findMany({
    where: { userId, disabledAt: null, ...(onlyWebhookId ? { id: onlyWebhookId } : {}) },
    orderBy: { createdAt: 'asc' },
    take: env().EV_MAX_WEBHOOKS_PER_ACCOUNT,
  });
  const ids: string[] = [];
  for (const hook of hooks) {
    const events = JSON.parse(hook.events) as string[];
    if (event.type !== TEST_EVENT && !events.includes(event.type)) continue;
    const id = newId('dlv');
    await tx.webhookDelivery.create({
      data: { id, webhookId: hook.id, eventType: event.type, payload: JSON.stringify(event), nextAttemptAt: BigInt(Date.now()) },
    });
    ids.push(id);
  }
  return ids;
}

/** A job's counts (lib/results/summary.ts), as the bulk events' schemas declare them. */
type Summary = EventData<'bulk.completed'>['summary'];

export function bulkCompletedEvent(job: { id: string; sandbox: boolean; totalEmails: number }, summary: Summary, completedAt: Date): EventPayload {
  return buildEvent('bulk.completed', job.sandbox, {
    jobId: job.id,
    status: 'completed',
    totalEmails: job.totalEmails,
    summary,
    downloadUrl: downloadUrl(job.id),
    completedAt,
  });
}

export function bulkFailedEvent(job: { id: string; sandbox: boolean; totalEmails: number }, summary: Summary, error: string, failedAt: Date): EventPayload {
  return buildEvent('bulk.failed', job.sandbox, { jobId: job.id, status: 'failed', totalEmails: job.totalEmails, summary, error, failedAt });
}
