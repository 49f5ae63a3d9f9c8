import { parseBody } from '@/lib/api/body';
import { apiRoute } from '@/lib/api/route';
import { operations } from '@/lib/api/operations';
import { monitorUpdateBody } from '@/lib/api/schemas';
import { db } from '@/lib/db/client';
import { deleteMonitor, getMonitor, updateMonitor } from '@/lib/monitors/monitors';

export const GET = apiRoute(operations.getMonitor, async (_request, caller, { id }) => getMonitor(await db(), caller.userId, id, caller.sandbox));

export const PATCH = apiRoute(operations.updateMonitor, async (_request, caller, { id }) =>
  updateMonitor(await db(), caller.userId, id, caller.sandbox, parseBody(caller.body, monitorUpdateBody)),
);

export const DELETE = apiRoute(operations.deleteMonitor, async (_request, caller, { id }) => deleteMonitor(await db(), caller.userId, id, caller.sandbox));
