import { apiRoute } from '@/lib/api/route';
import { operations } from '@/lib/api/operations';
import { db } from '@/lib/db/client';
import { cancelJob } from '@/lib/jobs/worker/lifecycle';

export const DELETE = apiRoute(operations.cancelJob, async (_request, caller, { jobId }) => cancelJob(await db(), caller.userId, jobId, caller.sandbox));
