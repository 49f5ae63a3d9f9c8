import { AccountError, createAccount } from '@/lib/accounts';

const statusFor: Record<AccountError['code'], number> = {
  email_taken: 409,
  weak_password: 400,
  invalid_email: 400,
  invalid_credentials: 400,
};

function error(status: number, code: string, message: string): Response {
  return Response.json({ error: code, message }, { status });
}

/** Sign-up is a cookie-less write, but a cross-site form could still create accounts in bulk. */
function sameOrigin(request: Request): boolean {
  const origin = request.headers.get('origin');
  if (!origin) return true;
  try {
    return new URL(origin).host === (request.headers.get('x-forwarded-host') ?? request.headers.get('host'));
  } catch {
    return false;
  }
}

/** Creates an account; the page then signs in through next-auth with the same credentials. */
export async function POST(request: Request): Promise<Response> {
  if (!sameOrigin(request)) return error(403, 'forbidden', 'Cross-site sign-up is not allowed.');
  const body = (await request.json().catch(() => null)) as { email?: unknown; password?: unknown } | null;
  if (typeof body?.email !== 'string' || typeof body.password !== 'string') {
    return error(400, 'invalid_request', 'Send an email and a password.');
  }
  try {
    const account = await createAccount(body.email, body.password);
    return Response.json({ id: account.id, email: account.email }, { status: 201 });
  } catch (e) {
    if (e instanceof AccountError) return error(statusFor[e.code], e.code, e.message);
    return error(500, 'server_error', 'Could not create the account. Try again.');
  }
}
