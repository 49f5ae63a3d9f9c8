import { parseBody } from '@/lib/api/body';
import { apiRoute } from '@/lib/api/route';
import { operations } from '@/lib/api/operations';
import { invitationTokenBody } from '@/lib/api/schemas';
import { acceptInvitation } from '@/lib/accounts/invitations';
import { db } from '@/lib/db/client';
import { AppError } from '@/lib/errors/app-error';

/** The signed-in person accepts an invitation sent to their address (never with an API key: a key is not a person). */
export const POST = apiRoute(operations.acceptInvitation, async (_request, caller) => {
  if (caller.via !== 'session') throw new AppError('forbidden', 'Accept an invitation from the dashboard, signed in as the invited address; API keys cannot.');
  const { token } = parseBody(caller.body, invitationTokenBody);
  return acceptInvitation(await db(), token, { id: caller.actorId });
});
