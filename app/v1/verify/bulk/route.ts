import { parseQuery } from '@/lib/api/body';
import { apiRoute, json } from '@/lib/api/route';
import { listQuery } from '@/lib/api/schemas';
import { invalidRequest } from '@/lib/errors';
import { takeJobLimits } from '@/lib/api/limits';
import { db } from '@/lib/db/client';
import { env } from '@/lib/env';
import { parseBulkRequest } from '@/lib/jobs/bulk-request';
import { pokeWorker } from '@/lib/jobs/embedded';
import { decodeCursor, listJobs } from '@/lib/jobs/status';
import { INSTANT_LIMIT, submitInstant, submitQueued } from '@/lib/jobs/submit';
import { applySandboxTrigger } from '@/lib/verification/triggers';

export const POST = apiRoute(async (_request, caller) => {
  const body = parseBulkRequest(caller.body);
  // Triggers apply only to a request of one address (README, "Sandbox mode"), so a list that
  // happens to hold an error-… address is still verified.
  if (caller.sandbox && body.emails.length === 1) await applySandboxTrigger(body.emails[0]!);
  const bulk = { ...body, userId: caller.userId, sandbox: caller.sandbox };
  await takeJobLimits(caller.userId, caller.sandbox, body.emails.length > INSTANT_LIMIT);
  const database = await db();
  if (body.emails.length <= INSTANT_LIMIT) return json(await submitInstant(database, bulk));
  const queued = await submitQueued(database, bulk);
  pokeWorker();
  return json(queued);
}, { maxBodyBytes: () => env().EV_MAX_BODY_BYTES });

export const GET = apiRoute(async (request, caller) => {
  const query = parseQuery(request, listQuery);
  const cursor = query.cursor ? decodeCursor(query.cursor) : null;
  if (query.cursor && !cursor) throw invalidRequest('cursor', 'cursor: not a cursor from this API');
  return json(await listJobs(await db(), caller.userId, caller.sandbox, query.limit, cursor));
});
