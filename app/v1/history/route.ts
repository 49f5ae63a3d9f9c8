import { parseQuery } from '@/lib/api/body';
import { apiRoute, json } from '@/lib/api/route';
import { historyQuery } from '@/lib/api/schemas';
import { db } from '@/lib/db/client';
import { listHistory } from '@/lib/history';

export const GET = apiRoute(async (request, caller) => {
  const query = parseQuery(request, historyQuery);
  const page = await listHistory(await db(), {
    userId: caller.userId,
    // In sandbox mode only sandbox records are listed; production defaults to production records.
    sandbox: caller.sandbox || (query.sandbox ?? false),
    limit: query.limit,
    before: query.cursor === undefined ? undefined : Number(query.cursor),
    email: query.email,
  });
  return json({ success: true, ...page });
});
