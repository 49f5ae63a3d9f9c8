import { parseBody } from '@/lib/api/body';
import { apiRoute, json, ok } from '@/lib/api/route';
import { webhookBody } from '@/lib/api/schemas';
import { db } from '@/lib/db/client';
import { createWebhook, listWebhooks } from '@/lib/webhooks/manage';

export const POST = apiRoute(
  async (_request, caller) => {
    const body = parseBody(caller.body, webhookBody);
    return json(await createWebhook(await db(), caller.userId, body), 201);
  },
  { creates: true },
);

export const GET = apiRoute(async (_request, caller) => ok({ data: await listWebhooks(await db(), caller.userId) }));
