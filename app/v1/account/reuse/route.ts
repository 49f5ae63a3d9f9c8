import { parseBody } from '@/lib/api/body';
import { apiRoute } from '@/lib/api/route';
import { operations } from '@/lib/api/operations';
import { reuseBody } from '@/lib/api/schemas';
import { db } from '@/lib/db/client';
import { reuseSettings, setReuse } from '@/lib/jobs/intake/reuse';

export const GET = apiRoute(operations.getReuse, async (_request, caller) => reuseSettings(await db(), caller.userId));

export const POST = apiRoute(operations.setReuse, async (_request, caller) => setReuse(await db(), caller.userId, parseBody(caller.body, reuseBody).days));
