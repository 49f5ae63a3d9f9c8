import { parseBody } from '@/lib/api/body';
import { apiRoute } from '@/lib/api/route';
import { operations } from '@/lib/api/operations';
import { twoFactorConfirmBody } from '@/lib/api/schemas';
import { forgetTwoFactorGates } from '@/lib/auth/organisation';
import { confirmEnrolment, sessionPerson } from '@/lib/auth/two-factor';
import { db } from '@/lib/db/client';

export const POST = apiRoute(operations.confirmTwoFactor, async (_request, caller) => {
  const userId = sessionPerson(caller);
  const enabled = await confirmEnrolment(await db(), userId, parseBody(caller.body, twoFactorConfirmBody).code);
  forgetTwoFactorGates();
  return enabled;
});
