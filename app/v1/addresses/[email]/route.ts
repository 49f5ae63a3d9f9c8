import { apiRoute } from '@/lib/api/route';
import { operations } from '@/lib/api/operations';
import { db } from '@/lib/db/client';
import { eraseAddress } from '@/lib/retention/erase';

export const DELETE = apiRoute(operations.eraseAddress, async (_request, caller, { email }) => eraseAddress(await db(), caller.userId, email));
