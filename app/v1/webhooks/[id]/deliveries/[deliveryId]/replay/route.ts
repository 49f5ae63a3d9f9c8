import { apiRoute, ok } from '@/lib/api/route';
import { operations } from '@/lib/api/operations';
import { db } from '@/lib/db/client';
import { replayDelivery } from '@/lib/webhooks/manage';

export const POST = apiRoute(operations.replayDelivery, async (_request, caller, { id, deliveryId }) =>
  ok(await replayDelivery(await db(), caller.userId, id, deliveryId, caller.sandbox)),
);
