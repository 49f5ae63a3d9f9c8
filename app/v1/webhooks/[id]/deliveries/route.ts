import { apiRoute } from '@/lib/api/route';
import { operations } from '@/lib/api/operations';
import { db } from '@/lib/db/client';
import { listDeliveries } from '@/lib/webhooks/manage';

export const GET = apiRoute(operations.listDeliveries, async (_request, caller, { id }) => ({
  data: await listDeliveries(await db(), caller.userId, id, caller.sandbox),
}));
