import { parseQuery } from '@/lib/api/body';
import { apiRoute, ok } from '@/lib/api/route';
import { statusQuery } from '@/lib/api/schemas';
import { db } from '@/lib/db/client';
import { jobStatus } from '@/lib/jobs/status/status';

export const GET = apiRoute<{ jobId: string }>(async (request, caller, { jobId }) => {
  const query = parseQuery(request, statusQuery);
  return ok(await jobStatus(await db(), caller.userId, jobId, { limit: query.limit, offset: query.offset, bucket: query.filter }, caller.sandbox));
});
