import { parseBody } from '@/lib/api/body';
import { apiRoute } from '@/lib/api/route';
import { operations } from '@/lib/api/operations';
import { ruleImportBody } from '@/lib/api/schemas';
import { db } from '@/lib/db/client';
import { addRules } from '@/lib/rules/store';

export const POST = apiRoute(operations.importRules, async (_request, caller) => {
  const { rules } = parseBody(caller.body, ruleImportBody);
  const added = await addRules(await db(), caller.userId, rules);
  return { created: added.created, data: added.rules };
});
