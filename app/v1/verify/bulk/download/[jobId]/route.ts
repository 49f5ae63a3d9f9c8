import { parseQuery } from '@/lib/api/body';
import { apiRoute } from '@/lib/api/route';
import { downloadQuery } from '@/lib/api/schemas';
import { db } from '@/lib/db/client';
import { resultsCsv } from '@/lib/jobs/csv';
import { getOwnJob } from '@/lib/jobs/queries';

export const GET = apiRoute<{ jobId: string }>(async (request, caller, { jobId }) => {
  const { filter } = parseQuery(request, downloadQuery);
  const database = await db();
  const job = await getOwnJob(database, caller.userId, jobId);
  return new Response(resultsCsv(database, job, filter), {
    headers: { 'Content-Type': 'text/csv; charset=utf-8', 'Content-Disposition': `attachment; filename="${job.id}.csv"` },
  });
});
