import { apiRoute, ok } from '@/lib/api/route';
import { operations } from '@/lib/api/operations';
import { db } from '@/lib/db/client';
import { cancelJob } from '@/lib/jobs/lifecycle';

export const DELETE = apiRoute(operations.cancelJob, async (_request, caller, { jobId }) =>
  ok(await cancelJob(await db(), caller.userId, jobId, caller.sandbox)),
);
