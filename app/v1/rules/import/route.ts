import { parseBody } from '@/lib/api/body';
import { apiRoute, ok } from '@/lib/api/route';
import { ruleImportBody } from '@/lib/api/schemas';
import { db } from '@/lib/db/client';
import { addRules } from '@/lib/rules/store';

/** A thousand rules of ~100 bytes each, with room for JSON. */
const IMPORT_BYTES = 256 * 1024;

export const POST = apiRoute(
  async (_request, caller) => {
    const { rules } = parseBody(caller.body, ruleImportBody);
    const added = await addRules(await db(), caller.userId, rules);
    return ok({ created: added.created, data: added.rules });
  },
  { creates: true, maxBodyBytes: IMPORT_BYTES },
);
