import { apiRoute, ok } from '@/lib/api/route';
import { operations } from '@/lib/api/operations';
import { db } from '@/lib/db/client';
import { sendTestEvent } from '@/lib/webhooks/manage';

export const POST = apiRoute(operations.testWebhook, async (_request, caller, { id }) =>
  ok(await sendTestEvent(await db(), caller.userId, id, caller.sandbox)),
);
