import { parseQuery } from '@/lib/api/body';
import { apiRoute } from '@/lib/api/route';
import { operations } from '@/lib/api/operations';
import { statusQuery } from '@/lib/api/schemas';
import { db } from '@/lib/db/client';
import { jobStatus } from '@/lib/jobs/status/status';

export const GET = apiRoute(operations.jobStatus, async (request, caller, { jobId }) => {
  const query = parseQuery(request, statusQuery);
  return jobStatus(await db(), caller.userId, jobId, { limit: query.limit, offset: query.offset, bucket: query.filter }, caller.sandbox);
});
