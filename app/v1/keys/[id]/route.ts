import { parseBody } from '@/lib/api/body';
import { apiRoute } from '@/lib/api/route';
import { operations } from '@/lib/api/operations';
import { keyUpdateBody } from '@/lib/api/schemas';
import { notFound } from '@/lib/errors/app-error';
import { revokeApiKey, updateApiKey, makerOf } from '@/lib/accounts/keys';
import { db } from '@/lib/db/client';

// caller.key: a key edits and revokes only keys within its own bounds (lib/accounts/keys.ts)
export const PATCH = apiRoute(operations.updateKey, async (_request, caller, { id }) => {
  const updated = await updateApiKey(await db(), caller.userId, id, parseBody(caller.body, keyUpdateBody), makerOf(caller));
  if (!updated) throw notFound('API key');
  return updated;
});

export const DELETE = apiRoute(operations.revokeKey, async (_request, caller, { id }) => {
  if (!(await revokeApiKey(await db(), caller.userId, id, makerOf(caller)))) throw notFound('API key');
  return { id, revoked: true };
});
