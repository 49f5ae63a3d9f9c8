import { NextResponse, type NextRequest } from 'next/server';

/**
 * The one check Next.js cannot be asked to make in a route: a path whose percent-encoding does not
 * decode (`/v1/webhooks/%ZZ`, a cut UTF-8 sequence) makes Next's own param decoding fail with a bare
 * text/plain 500. Such a path names nothing, so it is answered here: the API's JSON 400 envelope
 * under /v1 and /api, a plain 400 elsewhere.
 */
export function proxy(request: NextRequest): NextResponse | undefined {
  const path = request.nextUrl.pathname;
  if (!path.includes('%') || decodes(path)) return undefined;
  if (path.startsWith('/v1/') || path.startsWith('/api/')) {
    return NextResponse.json({ error: 'invalid_request', message: 'The request path is not valid percent-encoded UTF-8.', param: 'path' }, { status: 400 });
  }
  return new NextResponse('Bad Request: the path is not valid percent-encoded UTF-8.\n', {
    status: 400,
    headers: { 'content-type': 'text/plain; charset=utf-8' },
  });
}

function decodes(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

// Only paths holding a percent sign come here: Next.js buffers the body of every request its proxy
// sees (up to 10 MB, then cut), which a bulk upload of 100 MB must never meet.
export const config = { matcher: ['/(.*%.*)'] };
