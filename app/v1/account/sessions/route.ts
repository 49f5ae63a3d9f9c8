import { apiRoute } from '@/lib/api/route';
import { operations } from '@/lib/api/operations';
import { revokeSessions } from '@/lib/auth/sessions';

/** Sign out everywhere: every dashboard session of the account, this one included, stops working. */
export const DELETE = apiRoute(operations.signOutEverywhere, async (_request, caller) => {
  await revokeSessions(caller.actorId);
  return { message: 'Signed out of every session.' };
});
