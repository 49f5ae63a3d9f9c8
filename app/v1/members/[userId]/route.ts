import { parseBody } from '@/lib/api/body';
import { apiRoute } from '@/lib/api/route';
import { operations } from '@/lib/api/operations';
import { memberUpdateBody } from '@/lib/api/schemas';
import { removeMember, updateMember } from '@/lib/accounts/members';
import { db } from '@/lib/db/client';
import type { Role } from '@/lib/accounts/roles';

const actor = (caller: { actorId: string; role: Role }) => ({ id: caller.actorId, role: caller.role });

export const PATCH = apiRoute(operations.updateMember, async (_request, caller, { userId }) =>
  updateMember(await db(), caller.userId, actor(caller), userId, parseBody(caller.body, memberUpdateBody)),
);

export const DELETE = apiRoute(operations.removeMember, async (_request, caller, { userId }) => removeMember(await db(), caller.userId, actor(caller), userId));
