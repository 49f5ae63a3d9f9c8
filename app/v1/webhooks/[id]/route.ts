import { apiRoute } from '@/lib/api/route';
import { operations } from '@/lib/api/operations';
import { db } from '@/lib/db/client';
import { deleteWebhook } from '@/lib/webhooks/manage';

export const DELETE = apiRoute(operations.deleteWebhook, async (_request, caller, { id }) => deleteWebhook(await db(), caller.userId, id));
