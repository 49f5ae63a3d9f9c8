import { apiRoute, ok } from '@/lib/api/route';
import { revokeInvitation } from '@/lib/accounts/invitations';
import { db } from '@/lib/db/client';

export const DELETE = apiRoute<{ id: string }>(async (_request, caller, { id }) =>
  ok(await revokeInvitation(await db(), caller.userId, { id: caller.actorId, role: caller.role }, id)),
);
