import { apiRoute, ok } from '@/lib/api/route';
import { db } from '@/lib/db/client';
import { eraseAddress } from '@/lib/retention/erase';

export const DELETE = apiRoute<{ email: string }>(async (_request, caller, { email }) => ok(await eraseAddress(await db(), caller.userId, email)));
