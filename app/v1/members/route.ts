import { apiRoute } from '@/lib/api/route';
import { operations } from '@/lib/api/operations';
import { listMembers } from '@/lib/accounts/members';
import { db } from '@/lib/db/client';

export const GET = apiRoute(operations.listMembers, async (_request, caller) => ({ data: await listMembers(await db(), caller.userId) }));
