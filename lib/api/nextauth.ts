import NextAuth from 'next-auth';
import { readBytes } from './body';
import { AppError, invalidRequest } from '../errors/app-error';
import { errorResponse } from './error-response';
import { clientAddress, requestOrigin, withAuthRequestAddress } from '../auth/origin';
import { env } from '../config/env';
import { authOptions } from '../auth/options';
import { parseCookies } from '../auth/sessions';

/**
 * next-auth's route, fed only what we read within EV_AUTH_MAX_BODY_BYTES. next-auth's own App Router
 * handler calls req.json()/req.text() (a 60 MB body would be buffered and parsed whole) and reads
 * headers through next/headers; so we read the body here, parse it into the flat form next-auth
 * expects and call next-auth's framework-neutral (req, res) entry with plain objects.
 * The X-Forwarded-Host/-Proto it derives its URLs and cookie names from are replaced by the origin
 * lib/auth/origin.ts trusts, so its view of the site is the same-origin check's.
 */
export async function authRoute(request: Request, segments: string[]): Promise<Response> {
  try {
    if (request.method !== 'GET' && request.method !== 'POST' && request.method !== 'HEAD') {
      throw new AppError('method_not_allowed', `${request.method} is not supported here; use GET or POST.`, {}, { Allow: 'GET, POST' });
    }
    const body = request.method === 'POST' ? parseAuthBody(request, await readBytes(request, env().EV_AUTH_MAX_BODY_BYTES)) : undefined;
    const url = new URL(request.url);
    const own = requestOrigin(request);
    const headers: Record<string, string> = Object.fromEntries(request.headers);
    headers['x-forwarded-host'] = own.host;
    headers['x-forwarded-proto'] = own.scheme;
    const res = new CapturedResponse();
    await withAuthRequestAddress(clientAddress(request), () =>
      NextAuth(
        {
          query: { ...Object.fromEntries(url.searchParams), nextauth: segments },
          body,
          cookies: parseCookies(request.headers.get('cookie')),
          headers,
          method: request.method,
        } as never,
        res as never,
        authOptions,
      ),
    );
    return res.toResponse();
  } catch (error) {
    return errorResponse(error);
  }
}

/** A form or a JSON object of strings (what next-auth reads); anything else is a 400 before next-auth sees it. */
function parseAuthBody(request: Request, bytes: Buffer): Record<string, string> {
  if (bytes.length === 0) return {};
  const type = request.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase();
  const text = bytes.toString('utf8');
  if (type === 'application/x-www-form-urlencoded') return Object.fromEntries(new URLSearchParams(text));
  if (type === 'application/json') {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw invalidRequest('body', 'The request body is not valid JSON.');
    }
    // Every field next-auth reads is a string, except the `data` of a session update.
    if (!value || typeof value !== 'object' || Array.isArray(value) || Object.entries(value).some(([k, v]) => typeof v !== 'string' && k !== 'data')) {
      throw invalidRequest('body', 'The request body must be an object of string fields.');
    }
    return value as Record<string, string>;
  }
  throw invalidRequest('Content-Type', 'Send the form as application/x-www-form-urlencoded or application/json.');
}

/** The `res` next-auth's (req, res) entry writes to, turned into a web Response. */
class CapturedResponse {
  private code = 200;
  private readonly headers = new Headers();
  private body: string | null = null;

  status(code: number) {
    this.code = code;
    return this;
  }
  getHeader(name: string) {
    const values = name.toLowerCase() === 'set-cookie' ? this.headers.getSetCookie() : this.headers.get(name);
    return Array.isArray(values) && values.length === 0 ? undefined : (values ?? undefined);
  }
  setHeader(name: string, value: string | string[]) {
    this.headers.delete(name);
    for (const v of Array.isArray(value) ? value : [value]) this.headers.append(name, v);
    return this;
  }
  send(body: unknown) {
    this.body = body === undefined || body === null ? null : typeof body === 'string' ? body : JSON.stringify(body);
    return this;
  }
  json(body: unknown) {
    this.headers.set('content-type', 'application/json');
    return this.send(body);
  }
  end() {
    return this;
  }
  toResponse(): Response {
    return new Response(this.body, { status: this.code, headers: this.headers });
  }
}
