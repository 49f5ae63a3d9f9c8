import { apiRoute, json } from '@/lib/api/route';
import { db } from '@/lib/db/client';
import { deleteWebhook } from '@/lib/webhooks/manage';

export const DELETE = apiRoute<{ id: string }>(async (_request, caller, { id }) => json(await deleteWebhook(await db(), caller.userId, id)));
