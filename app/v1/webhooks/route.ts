import { parseBody } from '@/lib/api/body';
import { apiRoute } from '@/lib/api/route';
import { operations } from '@/lib/api/operations';
import { webhookBody } from '@/lib/api/schemas';
import { db } from '@/lib/db/client';
import { createWebhook, listWebhooks } from '@/lib/webhooks/manage';

export const POST = apiRoute(operations.createWebhook, async (_request, caller) => {
  const body = parseBody(caller.body, webhookBody);
  return createWebhook(await db(), caller.userId, body);
});

export const GET = apiRoute(operations.listWebhooks, async (_request, caller) => ({ data: await listWebhooks(await db(), caller.userId) }));
