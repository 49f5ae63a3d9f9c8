import { apiRoute } from '@/lib/api/route';
import { operations } from '@/lib/api/operations';
import { db } from '@/lib/db/client';
import { accountUsage } from '@/lib/accounts/quota';

export const GET = apiRoute(operations.getAccount, async (_request, caller) => accountUsage(await db(), caller.userId));
