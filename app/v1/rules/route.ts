import { parseBody } from '@/lib/api/body';
import { apiRoute } from '@/lib/api/route';
import { operations } from '@/lib/api/operations';
import { ruleBody } from '@/lib/api/schemas';
import { db } from '@/lib/db/client';
import { addRule, listRules } from '@/lib/rules/store';

export const GET = apiRoute(operations.listRules, async (_request, caller) => ({ data: await listRules(await db(), caller.userId) }));

export const POST = apiRoute(operations.createRule, async (_request, caller) => addRule(await db(), caller.userId, parseBody(caller.body, ruleBody)));
