import { parseQuery } from '@/lib/api/body';
import { apiRoute } from '@/lib/api/route';
import { operations } from '@/lib/api/operations';
import { egressQuery } from '@/lib/api/schemas';
import { egressStatus } from '@/lib/egress/state';

/** The installation's egress health (port 25, reverse DNS, blocklists); `?refresh=true` checks again. */
export const GET = apiRoute(operations.getEgress, async (request) => {
  const { refresh } = parseQuery(request, egressQuery);
  return { data: await egressStatus({ refresh: refresh ?? false }) };
});
