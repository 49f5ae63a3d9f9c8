import { apiRoute, ok } from '@/lib/api/route';
import { organisationsFor } from '@/lib/accounts/members';
import { db } from '@/lib/db/client';

export const GET = apiRoute(async (_request, caller) => ok(await organisationsFor(await db(), caller)));
