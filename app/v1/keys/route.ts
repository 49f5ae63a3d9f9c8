import { parseBody } from '@/lib/api/body';
import { apiRoute, json } from '@/lib/api/route';
import { keyBody } from '@/lib/api/schemas';
import { createApiKey, listApiKeys } from '@/lib/accounts';

export const POST = apiRoute(async (request, caller) => {
  const { name } = await parseBody(request, keyBody, 4096);
  const { key, info } = await createApiKey(caller.userId, name);
  return json({ ...info, key }, 201);
});

export const GET = apiRoute(async (_request, caller) => json({ success: true, data: await listApiKeys(caller.userId) }));
