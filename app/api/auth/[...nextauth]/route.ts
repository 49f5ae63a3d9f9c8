import { authRoute } from '@/lib/api/nextauth';

type Segment = { params: Promise<{ nextauth?: string[] }> };

/** next-auth's endpoints (sign-in, callback, session, csrf, sign-out), each body bounded first. */
const handler = async (request: Request, segment: Segment) => authRoute(request, (await segment.params).nextauth ?? []);

export { handler as GET, handler as POST, handler as PUT, handler as PATCH, handler as DELETE };
