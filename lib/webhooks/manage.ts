import { randomBytes } from 'node:crypto';
import type { Database } from '../db/client';
import { notFound } from '../errors/app-error';
import { createCapped, type Tx } from '../db/capped';
import { env } from '../config/env';
import { isIdShaped, newId } from '../db/ids';
import { parseWebhookUrl, resolvePublicAddress } from './guard';
import { buildEvent, enqueueEvent } from './outbox';
import { DEFAULT_EVENTS, TEST_EVENT } from './events';
import { deliverNow } from './dispatch';
import { recordAudit } from '../audit/record';
import { webhook } from '../api/responses-webhooks';
import { shape as toWire } from '../api/shape';

type Row = { id: string; url: string; events: string; description: string; createdAt: Date; disabledAt: Date | null };

function shape(row: Row) {
  return {
    id: row.id,
    url: row.url,
    events: JSON.parse(row.events) as string[],
    description: row.description,
    createdAt: row.createdAt.toISOString(),
    disabled: row.disabledAt !== null,
  };
}

export async function createWebhook(database: Database, userId: string, input: { url: string; events?: string[]; description?: string }) {
  const url = parseWebhookUrl(input.url);
  await resolvePublicAddress(url, env().EV_ALLOW_PRIVATE_NETWORKS);
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const cap = { what: 'webhooks', limit: env().EV_MAX_WEBHOOKS_PER_ACCOUNT, count: (tx: Tx) => tx.webhook.count({ where: { userId } }) };
  const row = await createCapped(database, userId, cap, async (tx) => {
    const created = await tx.webhook.create({
      data: {
        id: newId('wh'),
        userId,
        url: url.toString(),
        secret,
        description: input.description ?? '',
        events: JSON.stringify(input.events ?? DEFAULT_EVENTS),
      },
    });
    // the URL's host only: a path or query may carry the receiver's own token
    await recordAudit(tx, userId, 'webhook.created', { type: 'webhook', id: created.id, label: url.host });
    return created;
  });
  return { ...shape(row), secret };
}

export async function listWebhooks({ prisma }: Database, userId: string) {
  const rows = await prisma.webhook.findMany({ where: { userId }, orderBy: { createdAt: 'desc' } });
  return rows.map(shape);
}

/** The endpoints as GET /v1/webhooks answers them: the data export's webhooks.json (lib/retention/export.ts). */
export const webhooksAsAnswered = async (database: Database, userId: string) => (await listWebhooks(database, userId)).map((w) => toWire(webhook, w));

async function ownWebhook({ prisma }: Database, userId: string, id: string) {
  if (!isIdShaped(id)) throw notFound('Webhook');
  const row = await prisma.webhook.findUnique({ where: { id } });
  if (!row || row.userId !== userId) throw notFound('Webhook');
  return row;
}

function hostOf(url: string): string | null {
  try {
    return new URL(url).host;
  } catch {
    return null;
  }
}

export async function deleteWebhook(database: Database, userId: string, id: string) {
  const hook = await ownWebhook(database, userId, id);
  await database.prisma.$transaction(async (tx) => {
    await tx.webhook.delete({ where: { id } });
    await recordAudit(tx, userId, 'webhook.deleted', { type: 'webhook', id, label: hostOf(hook.url) });
  });
  return { id, deleted: true };
}

/**
 * The payload's top-level mode, as buildEvent (./outbox.ts) serialises it: inside a JSON string a
 * quote is escaped, so this text can only be the event's own `sandbox` field.
 */
const modeOf = (sandbox: boolean) => `,"sandbox":${sandbox},"data":`;

/** An endpoint's deliveries of the caller's mode: a sandbox key sees sandbox events only, and the reverse. */
export async function listDeliveries(database: Database, userId: string, id: string, sandbox: boolean) {
  await ownWebhook(database, userId, id);
  const rows = await database.prisma.webhookDelivery.findMany({
    where: { webhookId: id, payload: { contains: modeOf(sandbox) } },
    orderBy: { createdAt: 'desc' },
    take: 50,
    include: { attemptLog: { orderBy: { attempt: 'asc' } } },
  });
  return rows.map((row) => ({
    id: row.id,
    eventType: row.eventType,
    eventId: (JSON.parse(row.payload) as { id: string }).id,
    state: row.state,
    attempts: row.attempts,
    lastStatus: row.lastStatus,
    lastError: row.lastError,
    nextAttemptAt: row.state === 'pending' ? new Date(Number(row.nextAttemptAt)).toISOString() : null,
    createdAt: row.createdAt.toISOString(),
    attemptLog: row.attemptLog.map((a) => ({
      attempt: a.attempt,
      status: a.status,
      error: a.error,
      durationMs: a.durationMs,
      at: a.createdAt.toISOString(),
    })),
  }));
}

/** Queues a `webhook.test` event for this endpoint and sends it now. */
export async function sendTestEvent(database: Database, userId: string, id: string, sandbox: boolean) {
  await ownWebhook(database, userId, id);
  const event = buildEvent(TEST_EVENT, sandbox, { message: 'This is a test event from your email verification service.' });
  const [deliveryId] = await enqueueEvent(database.prisma, userId, event, id);
  await deliverNow(database, deliveryId!);
  const delivery = await database.prisma.webhookDelivery.findUnique({ where: { id: deliveryId! } });
  return { eventId: event.id, deliveryId, state: delivery?.state, lastStatus: delivery?.lastStatus ?? null };
}

/**
 * Sends a past delivery's payload again as a new delivery, now. The payload (and so the event id,
 * sent as webhook-id) is unchanged, so receivers that dedupe by webhook-id see a duplicate.
 */
export async function replayDelivery(database: Database, userId: string, id: string, deliveryId: string, sandbox: boolean) {
  const hook = await ownWebhook(database, userId, id);
  const original = await database.prisma.webhookDelivery.findUnique({ where: { id: deliveryId } });
  if (!original || original.webhookId !== hook.id || !original.payload.includes(modeOf(sandbox))) throw notFound('Delivery');
  const replayId = newId('dlv');
  await database.prisma.webhookDelivery.create({
    data: { id: replayId, webhookId: hook.id, eventType: original.eventType, payload: original.payload, nextAttemptAt: BigInt(Date.now()) },
  });
  await deliverNow(database, replayId);
  const delivery = await database.prisma.webhookDelivery.findUnique({ where: { id: replayId } });
  return { deliveryId: replayId, state: delivery?.state, lastStatus: delivery?.lastStatus ?? null };
}
