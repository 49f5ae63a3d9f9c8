import { apiRoute } from '@/lib/api/route';
import { operations } from '@/lib/api/operations';
import { removeMember } from '@/lib/accounts/members';
import { db } from '@/lib/db/client';

export const DELETE = apiRoute(operations.leaveOrganisation, async (_request, caller) =>
  removeMember(await db(), caller.userId, { id: caller.actorId, role: caller.role }, caller.actorId),
);
