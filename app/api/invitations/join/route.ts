import { parseBody } from '@/lib/api/body';
import { assertSameOrigin, clientAddress } from '@/lib/auth/origin';
import { json, publicRoute } from '@/lib/api/route';
import { invitationJoinBody } from '@/lib/api/schemas';
import { signUpWithInvitation } from '@/lib/auth/signup';
import { env } from '@/lib/config/env';
import { AppError, invalidRequest } from '@/lib/errors/app-error';

/**
 * A new person joins through an invitation link: their account (the invited address, the sign-up's
 * password policy and limit) and their membership, both or neither; the join page then signs in
 * through next-auth with the address and password. The same guards as sign-up
 * (app/api/signup/route.ts). An address with an account already: 409 (sign in and accept).
 */
export const POST = publicRoute(
  async (request, readBody) => {
    assertSameOrigin(request, { optional: true });
    if (request.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase() !== 'application/json') {
      throw invalidRequest('Content-Type', 'Send the join as application/json: {"token", "password"}.');
    }
    const { token, password } = parseBody(await readBody(), invitationJoinBody);
    return json(await signUpWithInvitation(token, password, clientAddress(request)), 201);
  },
  { maxBodyBytes: () => env().EV_AUTH_MAX_BODY_BYTES },
);

const wrongMethod = publicRoute(async (request) => {
  throw new AppError('method_not_allowed', `${request.method} is not supported here; join with POST.`, {}, { Allow: 'POST' });
});

export { wrongMethod as GET, wrongMethod as PUT, wrongMethod as PATCH, wrongMethod as DELETE };
