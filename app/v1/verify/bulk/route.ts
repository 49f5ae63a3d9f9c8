import { parseQuery } from '@/lib/api/body';
import { takeJobLimits } from '@/lib/api/limits';
import { apiRoute } from '@/lib/api/route';
import { operations } from '@/lib/api/operations';
import { listQuery } from '@/lib/api/schemas';
import { invalidRequest } from '@/lib/errors/app-error';
import { db } from '@/lib/db/client';
import { parseBulkRequest } from '@/lib/jobs/intake/bulk-request';
import { decodeCursor, listJobs } from '@/lib/jobs/status/status';
import { submitBulk } from '@/lib/jobs/intake/submit';

export const POST = apiRoute(operations.submitBulk, async (_request, caller) => {
  const bulk = {
    ...(await parseBulkRequest(caller.body)),
    uploadBytes: caller.body.length,
    userId: caller.userId,
    actorId: caller.actorId,
    sandbox: caller.sandbox,
  };
  return submitBulk(await db(), bulk, (queued) => takeJobLimits(caller.userId, caller.sandbox, queued));
});

export const GET = apiRoute(operations.listJobs, async (request, caller) => {
  const query = parseQuery(request, listQuery);
  const cursor = query.cursor ? decodeCursor(query.cursor) : null;
  if (query.cursor && !cursor) throw invalidRequest('cursor', 'cursor: not a cursor from this API');
  return listJobs(await db(), caller.userId, caller.sandbox, query.limit, cursor);
});
