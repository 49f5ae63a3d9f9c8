import { apiRoute, ok } from '@/lib/api/route';
import { db } from '@/lib/db/client';
import { deleteWebhook } from '@/lib/webhooks/manage';

export const DELETE = apiRoute<{ id: string }>(async (_request, caller, { id }) => ok(await deleteWebhook(await db(), caller.userId, id)));
