import { apiRoute, ok } from '@/lib/api/route';
import { db } from '@/lib/db/client';
import { deleteRule } from '@/lib/rules/store';

export const DELETE = apiRoute<{ id: string }>(async (_request, caller, { id }) => ok(await deleteRule(await db(), caller.userId, id)));
