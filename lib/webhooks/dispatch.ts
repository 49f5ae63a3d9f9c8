import type { Database } from '../db/client';
import { selectRows } from '../db/sql';
import { env } from '../config/env';
import { metrics } from '../metrics/registry';
import { sendSigned } from './send';
import { freeSlots, hasRoom, takeSlots, type Limits } from './slots';

/** Standard Webhooks' retry schedule: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h. */
export const RETRY_DELAYS_MS = [0, 5e3, 3e5, 18e5, 72e5, 18e6, 36e6, 504e5, 72e6, 864e5];

/** The next attempt after `attempts` failures, with ±10 % jitter; null when the schedule is spent. */
export function nextAttemptDelay(attempts: number, random = Math.random): number | null {
  const delay = RETRY_DELAYS_MS[attempts];
  if (delay === undefined) return null;
  return Math.round(delay * (0.9 + random() * 0.2));
}

/**
 * A claimed delivery leaves the queue for longer than its attempt can last (the attempt's deadline
 * plus its log write), so no other dispatcher, in this process or another, sends it meanwhile.
 */
const claimMs = () => 2 * env().EV_WEBHOOK_TIMEOUT_MS + 30_000;

const limits = (): Limits => {
  const config = env();
  return { global: config.EV_WEBHOOK_CONCURRENCY, perAccount: config.EV_WEBHOOK_PER_ACCOUNT, perEndpoint: config.EV_WEBHOOK_PER_ENDPOINT };
};

interface DueRow {
  id: string;
  webhook_id: string;
  user_id: string;
  next_attempt_at: number | bigint;
}

/**
 * Due deliveries in fair order: every account's oldest before any account's second, so one
 * account's ten thousand deliveries wait behind another's one. Accounts and endpoints at their
 * in-flight limit (./slots.ts) are left for later.
 */
async function dueDeliveries(database: Database, now: number, slots: number): Promise<DueRow[]> {
  const rows = await selectRows<DueRow>(
    database,
    `
    SELECT id, webhook_id, user_id, next_attempt_at FROM (
      SELECT d.id, d.webhook_id, w.user_id, d.next_attempt_at,
             ROW_NUMBER() OVER (PARTITION BY w.user_id ORDER BY d.next_attempt_at, d.id) AS turn
      FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
      WHERE d.state = 'pending' AND d.next_attempt_at <= ?
    ) due WHERE turn <= ? ORDER BY turn, next_attempt_at LIMIT ?`,
    [now, slots, slots * 4],
  );
  const taken = new Map<string, number>();
  return rows
    .filter((row) => {
      if (!hasRoom(limits(), row.user_id, row.webhook_id, taken.get(row.webhook_id) ?? 0)) return false;
      taken.set(row.webhook_id, (taken.get(row.webhook_id) ?? 0) + 1);
      return true;
    })
    .slice(0, slots);
}

/**
 * Claims the deliveries that are due, as many as this process has free slots for, and starts
 * them. Returns the attempts started (each settles when its attempt is logged); nothing waits for
 * them unless the caller does.
 */
export async function startDueDeliveries(database: Database, now = Date.now()): Promise<Promise<void>[]> {
  const slots = freeSlots(limits());
  if (slots <= 0) return [];
  const started: Promise<void>[] = [];
  for (const row of await dueDeliveries(database, now, slots)) {
    const claim = await claimAndSend(database, { id: row.id, webhookId: row.webhook_id, userId: row.user_id }, BigInt(row.next_attempt_at), now);
    if (claim) started.push(claim.done);
  }
  return started;
}

/** Sends what is due now and waits for those attempts (tests, and callers that need the outcome). */
export async function dispatchDueDeliveries(database: Database, now = Date.now()): Promise<number> {
  const started = await startDueDeliveries(database, now);
  await Promise.all(started);
  return started.length;
}

/**
 * Sends one queued delivery now (test events, replays) and waits for its attempt, within the same
 * limits as the dispatcher: when a limit is full it stays queued, due now, for the dispatcher.
 */
export async function deliverNow(database: Database, deliveryId: string): Promise<void> {
  const delivery = await database.prisma.webhookDelivery.findUnique({ where: { id: deliveryId }, include: { webhook: { select: { userId: true } } } });
  if (delivery?.state !== 'pending') return;
  const target = { id: deliveryId, webhookId: delivery.webhookId, userId: delivery.webhook.userId };
  await (await claimAndSend(database, target, delivery.nextAttemptAt, Date.now()))?.done;
}

/**
 * The dispatcher of a process (server or `npm run worker`): looks for due deliveries every
 * `intervalMs` and starts them without waiting, so no job and no other endpoint waits on a
 * receiver. Returns stop(), which lets attempts in flight finish (they are bounded by their deadline).
 */
export function startDispatcher(database: Database, intervalMs = 500): () => Promise<void> {
  let looking = false;
  const inFlight = new Set<Promise<void>>();
  const timer = setInterval(() => {
    if (looking) return;
    looking = true;
    startDueDeliveries(database)
      .then((started) => {
        for (const attempt of started) {
          inFlight.add(attempt);
          void attempt.finally(() => inFlight.delete(attempt));
        }
      })
      .catch((error) => console.error('[webhooks] dispatch error', error))
      .finally(() => {
        looking = false;
      });
  }, intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await Promise.allSettled([...inFlight]);
  };
}

/**
 * Takes the attempt's slots (./slots.ts), then claims the delivery by moving its next attempt out
 * (only one claimer wins) and starts sending it; `done` settles when the attempt is logged. Null
 * when a limit is full or another claimer won.
 */
async function claimAndSend(
  database: Database,
  target: { id: string; webhookId: string; userId: string },
  dueAt: bigint,
  now: number,
): Promise<{ done: Promise<void> } | null> {
  const { prisma } = database;
  const slots = await takeSlots(database, limits(), target.userId, target.webhookId, claimMs());
  if (!slots) return null;
  try {
    const claimed = await prisma.webhookDelivery.updateMany({
      where: { id: target.id, state: 'pending', nextAttemptAt: dueAt },
      data: { nextAttemptAt: BigInt(now + claimMs()) },
    });
    const delivery = claimed.count === 1 ? await prisma.webhookDelivery.findUnique({ where: { id: target.id }, include: { webhook: true } }) : null;
    if (!delivery) {
      await slots.release();
      return null;
    }
    const done = attempt(database, delivery.id, delivery.webhook, delivery.payload, delivery.attempts)
      .catch((error) => console.error('[webhooks] attempt error', error))
      .finally(() => slots.release());
    return { done };
  } catch (error) {
    await slots.release();
    throw error;
  }
}

async function attempt(
  { prisma }: Database,
  deliveryId: string,
  webhook: { id: string; url: string; secret: string; disabledAt: Date | null },
  payload: string,
  previousAttempts: number,
): Promise<void> {
  const messageId = (JSON.parse(payload) as { id: string }).id;
  const config = env();
  const result = webhook.disabledAt
    ? { status: null, error: 'endpoint disabled', durationMs: 0 }
    : await sendSigned(webhook.url, webhook.secret, messageId, payload, {
        allowPrivate: config.EV_ALLOW_PRIVATE_NETWORKS,
        timeoutMs: config.EV_WEBHOOK_TIMEOUT_MS,
      });
  const attempts = previousAttempts + 1;
  const ok = result.status !== null && result.status >= 200 && result.status < 300;
  // 410 Gone: the receiver says the endpoint no longer exists; stop sending to it.
  const gone = result.status === 410;
  const delay = ok || gone || webhook.disabledAt ? null : nextAttemptDelay(attempts);
  const state = ok ? 'succeeded' : delay === null ? 'failed' : 'pending';
  await prisma.$transaction([
    prisma.webhookAttempt.create({ data: { deliveryId, attempt: attempts, status: result.status, error: result.error, durationMs: result.durationMs } }),
    prisma.webhookDelivery.update({
      where: { id: deliveryId },
      data: { attempts, state, lastStatus: result.status, lastError: result.error, nextAttemptAt: BigInt(Date.now() + (delay ?? 0)) },
    }),
    ...(gone ? [prisma.webhook.update({ where: { id: webhook.id }, data: { disabledAt: new Date() } })] : []),
  ]);
  metrics().webhookDeliveries.inc({ outcome: ok ? 'delivered' : gone ? 'gone' : state === 'failed' ? 'failed' : 'retry' });
}
