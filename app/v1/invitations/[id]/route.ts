import { apiRoute } from '@/lib/api/route';
import { operations } from '@/lib/api/operations';
import { revokeInvitation } from '@/lib/accounts/invitations';
import { db } from '@/lib/db/client';

export const DELETE = apiRoute(operations.revokeInvitation, async (_request, caller, { id }) =>
  revokeInvitation(await db(), caller.userId, { id: caller.actorId, role: caller.role }, id),
);
