import { parseQuery } from '@/lib/api/body';
import { apiRoute } from '@/lib/api/route';
import { downloadQuery } from '@/lib/api/schemas';
import { db } from '@/lib/db/client';
import { resultsCsv } from '@/lib/jobs/csv';
import { getOwnJob } from '@/lib/jobs/queries';

export const GET = apiRoute<{ jobId: string }>(async (request, caller, { jobId }) => {
  const { filter, partial } = parseQuery(request, downloadQuery);
  const database = await db();
  const job = await getOwnJob(database, caller.userId, jobId);
  const isPartial = job.status !== 'completed';
  const body = resultsCsv(database, job, filter, { partial });
  return new Response(body, {
    headers: {
      'Content-Type': 'text/csv; charset=utf-8',
      'Content-Disposition': `attachment; filename="${job.id}${isPartial ? '-partial' : ''}.csv"`,
      ...(isPartial ? { 'X-EV-Partial': 'true' } : {}),
    },
  });
});
