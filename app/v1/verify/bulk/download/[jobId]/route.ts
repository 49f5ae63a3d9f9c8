import { parseQuery } from '@/lib/api/body';
import { apiRoute } from '@/lib/api/route';
import { operations } from '@/lib/api/operations';
import { downloadQuery } from '@/lib/api/schemas';
import { db } from '@/lib/db/client';
import { downloadCap, resultsFile } from '@/lib/jobs/export/csv';
import { watchBody } from '@/lib/api/heavy';
import { env } from '@/lib/config/env';
import { getOwnJob } from '@/lib/jobs/status/status';
import { recordAudit } from '@/lib/audit/record';

export const GET = apiRoute(operations.downloadJob, async (request, caller, { jobId }) => {
  const query = parseQuery(request, downloadQuery);
  const database = await db();
  const job = await getOwnJob(database, caller.userId, jobId, caller.sandbox || query.sandbox === true);
  const filter = query.filter === 'safe' && query.catch_all ? 'safe+catch-all' : query.filter;
  const { body, kind } = resultsFile(database, job, { filter, partial: query.partial, format: query.format, changed: query.changed });
  // one audit row when the download starts (lib/audit/record.ts)
  await recordAudit(
    database.prisma,
    caller.userId,
    'list.downloaded',
    { type: 'list', id: job.id, label: job.uploadFilename },
    {
      format: kind.kind,
      ...(filter ? { filter } : {}),
      ...(job.sandbox ? { sandbox: true } : {}),
    },
  );
  const partial = job.status !== 'completed';
  const name = `${job.id}${partial ? '-partial' : ''}${query.changed ? '-changed' : ''}.${kind.kind}`;
  const response = new Response(body, {
    headers: {
      'Content-Type': kind.kind === 'xlsx' ? 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' : 'text/csv; charset=utf-8',
      'Content-Disposition': `attachment; filename="${name}"`,
      ...(partial ? { 'X-EV-Partial': 'true' } : {}),
    },
  });
  return watchBody(response, () => undefined, downloadCap(job, env().EV_DOWNLOAD_RATIO));
});
