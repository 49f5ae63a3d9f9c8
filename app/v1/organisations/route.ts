import { apiRoute } from '@/lib/api/route';
import { operations } from '@/lib/api/operations';
import { organisationsFor } from '@/lib/accounts/members';
import { db } from '@/lib/db/client';

export const GET = apiRoute(operations.listOrganisations, async (_request, caller) => organisationsFor(await db(), caller));
