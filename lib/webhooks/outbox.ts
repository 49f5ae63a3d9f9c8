import type { Db } from '../db/client';
import { env } from '../config/env';
import { newId } from '../db/ids';
import { TEST_EVENT, type EventType } from './events';

export type { EventType } from './events';

export interface EventPayload {
  id: string;
  type: EventType;
  created_at: string;
  sandbox: boolean;
  data: Record<string, unknown>;
}

export function buildEvent(type: EventType, sandbox: boolean, data: Record<string, unknown>): EventPayload {
  return { id: newId('evt'), type, created_at: new Date().toISOString(), sandbox, data };
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

export function bulkCompletedEvent(job: { id: string; sandbox: boolean; totalEmails: number }, summary: object, completedAt: Date): EventPayload {
  return buildEvent('bulk.completed', job.sandbox, {
    job_id: job.id,
    status: 'completed',
    total_emails: job.totalEmails,
    summary,
    download_url: downloadUrl(job.id),
    completed_at: completedAt.toISOString(),
  });
}

export function bulkFailedEvent(job: { id: string; sandbox: boolean; totalEmails: number }, summary: object, error: string, failedAt: Date): EventPayload {
  return buildEvent('bulk.failed', job.sandbox, {
    job_id: job.id,
    status: 'failed',
    total_emails: job.totalEmails,
    summary,
    error,
    failed_at: failedAt.toISOString(),
  });
}
