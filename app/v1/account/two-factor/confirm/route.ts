import { parseBody } from '@/lib/api/body';
import { apiRoute, ok } from '@/lib/api/route';
import { twoFactorConfirmBody } from '@/lib/api/schemas';
import { forgetTwoFactorGates } from '@/lib/auth/organisation';
import { confirmEnrolment, sessionPerson } from '@/lib/auth/two-factor';
import { db } from '@/lib/db/client';

export const POST = apiRoute(
  async (_request, caller) => {
    const userId = sessionPerson(caller);
    const enabled = await confirmEnrolment(await db(), userId, parseBody(caller.body, twoFactorConfirmBody).code);
    forgetTwoFactorGates();
    return ok(enabled);
  },
  { maxBodyBytes: 4096, unstored: true },
);
