import { parseBody } from '@/lib/api/body';
import { apiRoute, ok } from '@/lib/api/route';
import { reuseBody } from '@/lib/api/schemas';
import { db } from '@/lib/db/client';
import { reuseSettings, setReuse } from '@/lib/jobs/intake/reuse';

export const GET = apiRoute(async (_request, caller) => ok(await reuseSettings(await db(), caller.userId)));

export const POST = apiRoute(async (_request, caller) => ok(await setReuse(await db(), caller.userId, parseBody(caller.body, reuseBody).days)));
