import { apiRoute } from '@/lib/api/route';
import { operations } from '@/lib/api/operations';
import { db } from '@/lib/db/client';
import { notFound } from '@/lib/errors/app-error';
import { sendTestEvent } from '@/lib/webhooks/manage';

export const POST = apiRoute(operations.testWebhook, async (_request, caller, { id }) => {
  const sent = await sendTestEvent(await db(), caller.userId, id, caller.sandbox);
  // no delivery row after sending: the endpoint was deleted meanwhile (its deliveries with it)
  if (sent.state === undefined) throw notFound('Webhook');
  return { ...sent, state: sent.state };
});
