import { parseBody, readBytes } from '@/lib/api/body';
import { AppError, invalidRequest } from '@/lib/errors';
import { errorResponse } from '@/lib/api/errors';
import { assertSameOrigin, clientAddress } from '@/lib/api/origin';
import { signUp } from '@/lib/auth/login';
import { signupBody } from '@/lib/api/schemas';
import { env } from '@/lib/env';

/**
 * Creates an account; the page then signs in through next-auth with the same credentials. The
 * body is read within EV_AUTH_MAX_BODY_BYTES before anything parses it. Sign-up is cookie-less,
 * but a cross-site form could still create accounts in bulk: a browser's Origin must be ours.
 */
export async function POST(request: Request): Promise<Response> {
  try {
    assertSameOrigin(request, { optional: true });
    if (request.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase() !== 'application/json') {
      throw invalidRequest('Content-Type', 'Send the sign-up as application/json: {"email", "password"}.');
    }
    const { email, password } = parseBody(await readBytes(request, env().EV_AUTH_MAX_BODY_BYTES), signupBody);
    const account = await signUp(email, password, clientAddress(request));
    return Response.json({ id: account.id, email: account.email }, { status: 201 });
  } catch (error) {
    return errorResponse(error);
  }
}

const wrongMethod = async (request: Request) =>
  errorResponse(new AppError('method_not_allowed', `${request.method} is not supported here; sign up with POST.`, {}, { Allow: 'POST' }));

export { wrongMethod as GET, wrongMethod as PUT, wrongMethod as PATCH, wrongMethod as DELETE };
