import { parseBody } from '@/lib/api/body';
import { apiRoute, ok } from '@/lib/api/route';
import { organisationBody } from '@/lib/api/schemas';
import { renameOrganisation } from '@/lib/accounts/members';
import { forgetTwoFactorGates } from '@/lib/auth/organisation';
import { db } from '@/lib/db/client';

export const PATCH = apiRoute(async (_request, caller) => {
  const changed = await renameOrganisation(await db(), caller.userId, parseBody(caller.body, organisationBody), caller.actorId);
  forgetTwoFactorGates();
  return ok(changed);
});
