import type { Database } from '../db/client';
import { env } from '../env';
import { sendSigned } from './send';

/** Standard Webhooks' retry schedule: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h. */
export const RETRY_DELAYS_MS = [0, 5e3, 3e5, 18e5, 72e5, 18e6, 36e6, 504e5, 72e6, 864e5];

/** The next attempt after `attempts` failures, with ±10 % jitter; null when the schedule is spent. */
export function nextAttemptDelay(attempts: number, random = Math.random): number | null {
  const delay = RETRY_DELAYS_MS[attempts];
  if (delay === undefined) return null;
  return Math.round(delay * (0.9 + random() * 0.2));
}

const CLAIM_MS = 60_000;
let busy = false;

/** Sends deliveries that are due. Claimed by moving their next attempt out, so two dispatchers do not race. */
export async function dispatchDueDeliveries(database: Database, now = Date.now()): Promise<number> {
  if (busy) return 0;
  busy = true;
  try {
    const { prisma } = database;
    const due = await prisma.webhookDelivery.findMany({
      where: { state: 'pending', nextAttemptAt: { lte: BigInt(now) } },
      include: { webhook: true },
      orderBy: { nextAttemptAt: 'asc' },
      take: 20,
    });
    const sent = await Promise.all(due.map(async (delivery) => {
      const claimed = await prisma.webhookDelivery.updateMany({
        where: { id: delivery.id, state: 'pending', nextAttemptAt: delivery.nextAttemptAt },
        data: { nextAttemptAt: BigInt(now + CLAIM_MS) },
      });
      if (claimed.count !== 1) return 0;
      await attempt(database, delivery.id, delivery.webhook, delivery.payload, delivery.attempts);
      return 1;
    }));
    return sent.reduce<number>((a, b) => a + b, 0);
  } finally {
    busy = false;
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
  const result = webhook.disabledAt
    ? { status: null, error: 'endpoint disabled', durationMs: 0 }
    : await sendSigned(webhook.url, webhook.secret, messageId, payload, env().EV_ALLOW_PRIVATE_NETWORKS);
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
}
