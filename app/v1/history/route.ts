import { parseQuery } from '@/lib/api/body';
import { apiRoute } from '@/lib/api/route';
import { operations } from '@/lib/api/operations';
import { historyQuery } from '@/lib/api/schemas';
import { db } from '@/lib/db/client';
import { historyFor } from '@/lib/results/history';

export const GET = apiRoute(operations.listHistory, async (request, caller) => historyFor(await db(), caller, parseQuery(request, historyQuery)));
