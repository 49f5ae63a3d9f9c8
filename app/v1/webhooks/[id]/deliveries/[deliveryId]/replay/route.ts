import { apiRoute, ok } from '@/lib/api/route';
import { db } from '@/lib/db/client';
import { replayDelivery } from '@/lib/webhooks/manage';

export const POST = apiRoute<{ id: string; deliveryId: string }>(
  async (_request, caller, { id, deliveryId }) => ok(await replayDelivery(await db(), caller.userId, id, deliveryId, caller.sandbox)),
  { creates: true },
);
