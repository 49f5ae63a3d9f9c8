import { parseQuery } from '@/lib/api/body';
import { takeJobLimits } from '@/lib/api/limits';
import { apiRoute, ok } from '@/lib/api/route';
import { listQuery } from '@/lib/api/schemas';
import { invalidRequest } from '@/lib/errors/app-error';
import { db } from '@/lib/db/client';
import { env } from '@/lib/config/env';
import { parseBulkRequest } from '@/lib/jobs/bulk-request';
import { decodeCursor, listJobs } from '@/lib/jobs/status';
import { submitBulk } from '@/lib/jobs/submit';

export const POST = apiRoute(
  async (_request, caller) => {
    const bulk = {
      ...(await parseBulkRequest(caller.body)),
      uploadBytes: caller.body.length,
      userId: caller.userId,
      actorId: caller.actorId,
      sandbox: caller.sandbox,
    };
    return ok(await submitBulk(await db(), bulk, (queued) => takeJobLimits(caller.userId, caller.sandbox, queued)));
  },
  { maxBodyBytes: () => env().EV_MAX_BODY_BYTES, heavy: true },
);

export const GET = apiRoute(async (request, caller) => {
  const query = parseQuery(request, listQuery);
  const cursor = query.cursor ? decodeCursor(query.cursor) : null;
  if (query.cursor && !cursor) throw invalidRequest('cursor', 'cursor: not a cursor from this API');
  return ok(await listJobs(await db(), caller.userId, caller.sandbox, query.limit, cursor));
});
