import { parseBody } from '@/lib/api/body';
import { apiRoute, json } from '@/lib/api/route';
import { emailBody } from '@/lib/api/schemas';
import { db } from '@/lib/db/client';
import { verifyResult } from '@/lib/verification/shape';
import { verifySingle } from '@/lib/verification/single';

export const POST = apiRoute(async (request, caller) => {
  const { email } = parseBody(caller.body, emailBody);
  const outcome = await verifySingle(await db(), caller.userId, caller.sandbox, email);
  return json(verifyResult(outcome.verdict, outcome.responseTimeMs, outcome.cached, caller.sandbox));
}, { maxBodyBytes: 64 * 1024 });
