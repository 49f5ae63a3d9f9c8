import { parseBody } from '@/lib/api/body';
import { apiRoute } from '@/lib/api/route';
import { operations } from '@/lib/api/operations';
import { monitorBody } from '@/lib/api/schemas';
import { db } from '@/lib/db/client';
import { createMonitor, listMonitors } from '@/lib/monitors/monitors';

export const GET = apiRoute(operations.listMonitors, async (_request, caller) => listMonitors(await db(), caller.userId, caller.sandbox));

export const POST = apiRoute(operations.createMonitor, async (_request, caller) =>
  createMonitor(await db(), caller.userId, caller.sandbox, parseBody(caller.body, monitorBody)),
);
