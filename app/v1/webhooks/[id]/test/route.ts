import { apiRoute, ok } from '@/lib/api/route';
import { db } from '@/lib/db/client';
import { sendTestEvent } from '@/lib/webhooks/manage';

export const POST = apiRoute<{ id: string }>(async (_request, caller, { id }) => ok(await sendTestEvent(await db(), caller.userId, id, caller.sandbox)), {
  creates: true,
});
