import { parseBody } from '@/lib/api/body';
import { apiRoute, ok } from '@/lib/api/route';
import { organisationBody } from '@/lib/api/schemas';
import { renameOrganisation } from '@/lib/accounts/members';
import { db } from '@/lib/db/client';

export const PATCH = apiRoute(async (_request, caller) => ok(await renameOrganisation(await db(), caller.userId, parseBody(caller.body, organisationBody).name)));
