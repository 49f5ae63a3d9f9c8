import { parseBody } from '@/lib/api/body';
import { apiRoute } from '@/lib/api/route';
import { operations } from '@/lib/api/operations';
import { twoFactorDisableBody } from '@/lib/api/schemas';
import { disableTwoFactorThrottled } from '@/lib/auth/credential-changes';
import { forgetTwoFactorGates } from '@/lib/auth/organisation';
import { sessionPerson, startEnrolment, twoFactorState } from '@/lib/auth/two-factor';
import { db } from '@/lib/db/client';

/** The signed-in person's own two-factor sign-in (docs/security.md, "Two-factor"), from a dashboard session only. */
export const GET = apiRoute(operations.getTwoFactor, async (_request, caller) =>
  twoFactorState(await db(), sessionPerson(caller), { orgId: caller.userId, role: caller.role }),
);

export const POST = apiRoute(operations.startTwoFactor, async (_request, caller) => startEnrolment(await db(), sessionPerson(caller)));

export const DELETE = apiRoute(operations.disableTwoFactor, async (_request, caller) => {
  const userId = sessionPerson(caller);
  const proof = caller.body.length ? parseBody(caller.body, twoFactorDisableBody) : {};
  await disableTwoFactorThrottled(userId, proof);
  forgetTwoFactorGates();
  return { enabled: false };
});
