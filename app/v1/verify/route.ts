import { parseBody } from '@/lib/api/body';
import { apiRoute, json } from '@/lib/api/route';
import { emailBody } from '@/lib/api/schemas';
import { db } from '@/lib/db/client';
import { verifyResult, withoutEvidenceFor } from '@/lib/checks/shape';
import { preflight } from '@/lib/api/cors';
import { verifySingle } from '@/lib/checks/single';

export const POST = apiRoute(async (request, caller) => {
  const { email } = parseBody(caller.body, emailBody);
  const outcome = await verifySingle(await db(), caller.userId, caller.sandbox, email);
  return json(withoutEvidenceFor(caller, verifyResult(outcome.verdict, outcome.responseTimeMs, outcome.cached, caller.sandbox)));
}, { maxBodyBytes: 64 * 1024 });

/** CORS preflight for publishable keys (the form widget): answered for the key's allowed origins only. */
export const OPTIONS = preflight;
