import { parseQuery } from '@/lib/api/body';
import { apiRoute } from '@/lib/api/route';
import { operations } from '@/lib/api/operations';
import { usageQuery } from '@/lib/api/schemas';
import { db } from '@/lib/db/client';
import { usageCsv, usageFor } from '@/lib/usage/report';
import { memberUsageCsv } from '@/lib/usage/members';

export const GET = apiRoute(operations.getUsage, async (request, caller) => {
  const query = parseQuery(request, usageQuery);
  const report = await usageFor(await db(), caller.userId, query);
  if (query.format !== 'csv') return report;
  const members = 'members' in report ? report.members : undefined;
  return new Response(members ? memberUsageCsv(members) : usageCsv(report.data), {
    headers: {
      'Content-Type': 'text/csv; charset=utf-8',
      'Content-Disposition': `attachment; filename="usage-${members ? 'members-' : ''}${report.from}-${report.to}.csv"`,
    },
  });
});
