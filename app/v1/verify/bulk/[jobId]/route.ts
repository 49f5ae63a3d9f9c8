import { apiRoute, ok } from '@/lib/api/route';
import { db } from '@/lib/db/client';
import { cancelJob } from '@/lib/jobs/worker/lifecycle';

export const DELETE = apiRoute<{ jobId: string }>(async (_request, caller, { jobId }) => ok(await cancelJob(await db(), caller.userId, jobId, caller.sandbox)));
