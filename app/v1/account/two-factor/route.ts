import { parseBody } from '@/lib/api/body';
import { apiRoute, ok } from '@/lib/api/route';
import { twoFactorDisableBody } from '@/lib/api/schemas';
import { disableTwoFactorThrottled } from '@/lib/auth/credential-changes';
import { forgetTwoFactorGates } from '@/lib/auth/organisation';
import { sessionPerson, startEnrolment, twoFactorState } from '@/lib/auth/two-factor';
import { db } from '@/lib/db/client';

/** The signed-in person's own two-factor sign-in (docs/security.md, "Two-factor"), from a dashboard session only. */
export const GET = apiRoute(async (_request, caller) =>
  ok(await twoFactorState(await db(), sessionPerson(caller), { orgId: caller.userId, role: caller.role })),
);

export const POST = apiRoute(async (_request, caller) => ok(await startEnrolment(await db(), sessionPerson(caller))), { maxBodyBytes: 1024, unstored: true });

export const DELETE = apiRoute(
  async (_request, caller) => {
    const userId = sessionPerson(caller);
    const proof = caller.body.length ? parseBody(caller.body, twoFactorDisableBody) : {};
    await disableTwoFactorThrottled(userId, proof);
    forgetTwoFactorGates();
    return ok({ enabled: false });
  },
  { maxBodyBytes: 4096 },
);
