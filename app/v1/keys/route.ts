import { parseBody } from '@/lib/api/body';
import { apiRoute } from '@/lib/api/route';
import { operations } from '@/lib/api/operations';
import { keyBody } from '@/lib/api/schemas';
import { createApiKey, listApiKeys, makerOf } from '@/lib/accounts/keys';
import { db } from '@/lib/db/client';

// a key makes keys within its own bounds only, a person keys up to their role (lib/accounts/keys.ts)
export const POST = apiRoute(operations.createKey, async (_request, caller) => {
  const { key, info } = await createApiKey(await db(), caller.userId, parseBody(caller.body, keyBody), makerOf(caller));
  return { ...info, key };
});

export const GET = apiRoute(operations.listKeys, async (_request, caller) => ({ data: await listApiKeys(await db(), caller.userId) }));
