import { parseBody } from '@/lib/api/body';
import { assertSameOrigin, clientAddress } from '@/lib/auth/origin';
import { json, publicRoute } from '@/lib/api/route';
import { signupBody } from '@/lib/api/schemas';
import { signUp } from '@/lib/auth/signup';
import { env } from '@/lib/config/env';
import { AppError, invalidRequest } from '@/lib/errors/app-error';

/**
 * Creates an account; the page then signs in through next-auth with the same credentials. The
 * body is read within EV_AUTH_MAX_BODY_BYTES before anything parses it. Sign-up is cookie-less,
 * but a cross-site form could still create accounts in bulk: a browser's Origin must be ours.
 */
export const POST = publicRoute(
  async (request, readBody) => {
    assertSameOrigin(request, { optional: true });
    if (request.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase() !== 'application/json') {
      throw invalidRequest('Content-Type', 'Send the sign-up as application/json: {"email", "password"}.');
    }
    const { email, password } = parseBody(await readBody(), signupBody);
    const account = await signUp(email, password, clientAddress(request));
    return json({ id: account.id, email: account.email }, 201);
  },
  { maxBodyBytes: () => env().EV_AUTH_MAX_BODY_BYTES },
);

const wrongMethod = publicRoute(async (request) => {
  throw new AppError('method_not_allowed', `${request.method} is not supported here; sign up with POST.`, {}, { Allow: 'POST' });
});

export { wrongMethod as GET, wrongMethod as PUT, wrongMethod as PATCH, wrongMethod as DELETE };
