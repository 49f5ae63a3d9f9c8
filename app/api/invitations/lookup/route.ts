import { parseBody } from '@/lib/api/body';
import { assertSameOrigin, clientAddress } from '@/lib/auth/origin';
import { json, publicRoute } from '@/lib/api/route';
import { invitationTokenBody } from '@/lib/api/schemas';
import { lookUpInvitationThrottled } from '@/lib/auth/signup';
import { env } from '@/lib/config/env';
import { AppError, invalidRequest } from '@/lib/errors/app-error';

/**
 * What the join page (app/(auth)/join/page.tsx) shows of a link before anyone signs in: the
 * organisation, the role and the address, and whether that address has an account. Guarded as
 * sign-up is (app/api/signup/route.ts): our own pages' Origin, JSON, a small body; refused links
 * are throttled per client address (lib/auth/signup.ts). Any link that cannot be used: the one 404.
 */
export const POST = publicRoute(
  async (request, readBody) => {
    assertSameOrigin(request, { optional: true });
    if (request.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase() !== 'application/json') {
      throw invalidRequest('Content-Type', 'Send the look-up as application/json: {"token"}.');
    }
    const { token } = parseBody(await readBody(), invitationTokenBody);
    return json(await lookUpInvitationThrottled(token, clientAddress(request)));
  },
  { maxBodyBytes: () => env().EV_AUTH_MAX_BODY_BYTES },
);

const wrongMethod = publicRoute(async (request) => {
  throw new AppError('method_not_allowed', `${request.method} is not supported here; look an invitation up with POST.`, {}, { Allow: 'POST' });
});

export { wrongMethod as GET, wrongMethod as PUT, wrongMethod as PATCH, wrongMethod as DELETE };
