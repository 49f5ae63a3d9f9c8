import { parseBody } from '@/lib/api/body';
import { apiRoute } from '@/lib/api/route';
import { operations } from '@/lib/api/operations';
import { retentionBody } from '@/lib/api/schemas';
import { db } from '@/lib/db/client';
import { retentionState, setRetention } from '@/lib/retention/policy';

export const GET = apiRoute(operations.getRetention, async (_request, caller) => retentionState(await db(), caller.userId));

export const POST = apiRoute(operations.setRetention, async (_request, caller) => {
  const { retention_days } = parseBody(caller.body, retentionBody);
  return setRetention(await db(), caller.userId, retention_days);
});
