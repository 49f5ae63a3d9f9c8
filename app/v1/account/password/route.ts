import { parseBody } from '@/lib/api/body';
import { AppError } from '@/lib/errors/app-error';
import { answer } from '@/lib/api/answer';
import { apiRoute } from '@/lib/api/route';
import { operations } from '@/lib/api/operations';
import { changePasswordThrottled } from '@/lib/auth/credential-changes';
import { passwordChangeBody } from '@/lib/api/schemas';
import { readSession, reissuedSessionCookie } from '@/lib/auth/sessions';

/**
 * Changes the password from a dashboard session (never with an API key: a leaked key must not lead
 * to the account). Every other session is signed out; this one gets a re-issued cookie.
 */
export const POST = apiRoute(operations.changePassword, async (request, caller) => {
  if (caller.via !== 'session') throw new AppError('forbidden', 'Change the password from the dashboard, signed in; API keys cannot.');
  const body = parseBody(caller.body, passwordChangeBody);
  const version = await changePasswordThrottled(caller.actorId, body.current_password, body.new_password);
  const response = answer(operations.changePassword, { message: 'Password changed. Other sessions are signed out.' });
  const token = await readSession(request);
  if (token) response.headers.append('Set-Cookie', await reissuedSessionCookie(request, token, version));
  return response;
});
