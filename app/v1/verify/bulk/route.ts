import { parseQuery } from '@/lib/api/body';
import { takeJobLimits } from '@/lib/api/limits';
import { apiRoute } from '@/lib/api/route';
import { operations } from '@/lib/api/operations';
import { listQuery } from '@/lib/api/schemas';
import { invalidRequest } from '@/lib/errors/app-error';
import { db } from '@/lib/db/client';
import { parseBulkRequest } from '@/lib/jobs/intake/bulk-request';
import { collectSoon, releaseNow } from '@/lib/memory/release';
import { decodeCursor, listJobs } from '@/lib/jobs/status/status';
import { submitBulk } from '@/lib/jobs/intake/submit';

export const POST = apiRoute(operations.submitBulk, async (_request, caller) => {
  const uploadBytes = caller.body.length;
  const list = await parseBulkRequest(caller.body);
  // read whole: its bytes (tens of MB for a big list) go back now, before the list is checked and written
  releaseNow(caller.body);
  const bulk = {
    ...list,
    uploadBytes,
    userId: caller.userId,
    actorId: caller.actorId,
    sandbox: caller.sandbox,
  };
  const answer = await submitBulk(await db(), bulk, (queued) => takeJobLimits(caller.userId, caller.sandbox, queued));
  // a big list's strings are garbage once answered: collected now, not midway through its job
  if (bulk.emails.length >= COLLECT_FROM) collectSoon(COLLECT_AFTER_MS);
  return answer;
});

/** From how many addresses a submission starts a collection once answered, and how long after (lib/memory/release.ts). */
const COLLECT_FROM = 100_000;
const COLLECT_AFTER_MS = 100;

export const GET = apiRoute(operations.listJobs, async (request, caller) => {
  const query = parseQuery(request, listQuery);
  const cursor = query.cursor ? decodeCursor(query.cursor) : null;
  if (query.cursor && !cursor) throw invalidRequest('cursor', 'cursor: not a cursor from this API');
  return listJobs(await db(), caller.userId, caller.sandbox, query.limit, cursor);
});
