import { parseBody } from '@/lib/api/body';
import { apiRoute } from '@/lib/api/route';
import { operations } from '@/lib/api/operations';
import { quotaWarningBody } from '@/lib/api/schemas';
import { db } from '@/lib/db/client';
import { quotaState, setQuotaWarning } from '@/lib/accounts/quota-events';

export const GET = apiRoute(operations.getQuota, async (_request, caller) => quotaState(await db(), caller.userId));

export const POST = apiRoute(operations.setQuotaWarning, async (_request, caller) => {
  const { warning_below } = parseBody(caller.body, quotaWarningBody);
  return setQuotaWarning(await db(), caller.userId, warning_below);
});
