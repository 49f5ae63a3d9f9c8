import { db } from '../db/client';
import { verifySingle } from '../checks/single';
import { withoutEvidenceFor, type singleResult, type verifyResult } from '../checks/shape';
import { parseBody } from './body';
import { apiRoute } from './route';
import { emailBody } from './schemas';
import type { operations } from './operations';

/**
 * POST /v1/verify and POST /v1/verify/single: one address checked as the caller's mode makes it,
 * answered in the route's shape (lib/checks/shape.ts); a publishable key's answer without the SMTP evidence.
 */
export function singleCheckRoute(op: typeof operations.verifySingle | typeof operations.verify, shape: typeof singleResult | typeof verifyResult) {
  return apiRoute(op, async (_request, caller) => {
    const { email } = parseBody(caller.body, emailBody);
    const key = caller.key;
    // a publishable key's charged checks count against its daily cap (lib/accounts/key-budget.ts)
    const budget = key?.type === 'publishable' ? { keyId: key.id, name: key.name, perDay: key.checksPerDay } : undefined;
    const outcome = await verifySingle(await db(), caller.userId, caller.sandbox, email, budget, caller.since, caller.actorId);
    return withoutEvidenceFor(caller, shape(outcome.verdict, outcome.responseTimeMs, outcome.cached, caller.sandbox));
  });
}
