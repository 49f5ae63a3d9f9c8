import { apiRoute } from '@/lib/api/route';
import { operations } from '@/lib/api/operations';
import { db } from '@/lib/db/client';
import { deleteRule } from '@/lib/rules/store';

export const DELETE = apiRoute(operations.deleteRule, async (_request, caller, { id }) => deleteRule(await db(), caller.userId, id));
