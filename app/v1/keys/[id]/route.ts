import { apiRoute, ok } from '@/lib/api/route';
import { notFound } from '@/lib/errors/errors';
import { revokeApiKey } from '@/lib/accounts/keys';
import { db } from '@/lib/db/client';

export const DELETE = apiRoute<{ id: string }>(async (_request, caller, { id }) => {
  if (!(await revokeApiKey(await db(), caller.userId, id))) throw notFound('API key');
  return ok({ id, revoked: true });
});
