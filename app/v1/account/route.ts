import { apiRoute, json } from '@/lib/api/route';
import { db } from '@/lib/db/client';
import { accountUsage } from '@/lib/accounts/quota';

export const GET = apiRoute(async (_request, caller) => json(await accountUsage(await db(), caller.userId)));
