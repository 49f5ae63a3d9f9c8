import { ensureAccount } from '@/lib/accounts/users';
import { createApiKey } from '@/lib/accounts/keys';
import { useDatabase, type Database } from '@/lib/db/client';
import { freshDatabaseUrl } from '../databases';
import { assertMatchesContract } from './contract';

type RouteHandler = (request: Request, segment: { params: Promise<any> }) => Promise<Response>;

export interface Call {
  method?: string;
  path?: string;
  body?: unknown;
  rawBody?: string;
  key?: string | null;
  sandbox?: boolean;
  headers?: Record<string, string>;
  params?: Record<string, string>;
  /** false only where the test planted the answer itself (a stored idempotent reply) */
  contract?: boolean;
}

/**
 * Calls a route handler exactly as Next.js would, with a real Request, and checks the answer against
 * the OpenAPI document (test/api/contract.ts): status, headers and body.
 */
export async function call(handler: RouteHandler, options: Call = {}) {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== null && options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
  if (options.sandbox ?? true) headers['x-ev-sandbox'] = 'true';
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers['content-type'] = 'application/json';
  const request = new Request(`http://localhost${options.path ?? '/v1/test'}`, { method: options.method ?? (body ? 'POST' : 'GET'), headers, body });
  const answer = await answerOf(await handler(request, { params: Promise.resolve(options.params ?? {}) }));
  if (options.contract ?? true) assertMatchesContract(handler, answer);
  return answer;
}

/** A response read whole: its status, headers, text and (when it is JSON) the parsed body. */
export async function answerOf(response: Response) {
  const text = await response.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** Reads until `ok` holds or `ms` pass, and returns the last value read (the caller asserts on it). */
export async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (ok(value) || Date.now() > end) return value;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * A fresh database of the dialect, with an account and a key. `env` is set for the test file and
 * put back as it was by teardown.
 */
export async function setup(dialect: 'sqlite' | 'postgres', env: Record<string, string> = {}) {
  const saved = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]));
  Object.assign(process.env, env);
  const fresh = await freshDatabaseUrl(dialect);
  process.env.DATABASE_URL = fresh.url;
  const database: Database = await useDatabase(fresh.url);
  const account = await ensureAccount(database, `dev-${Math.random().toString(36).slice(2, 8)}@example.com`);
  const { key } = await createApiKey(database, account.id, 'test');
  return {
    database,
    account,
    key,
    async teardown() {
      await database.prisma.$disconnect();
      await fresh.drop();
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    },
  };
}

/**
 * A dashboard session cookie for the person (as next-auth issues it at sign-in, at their current
 * session version), acting for `orgId` when given (the header's switcher).
 */
export async function sessionCookie(database: Database, userId: string, orgId?: string): Promise<string> {
  const { encode } = await import('next-auth/jwt');
  const { sessionSecret } = await import('@/lib/config/secret');
  const sv = (await database.prisma.user.findUnique({ where: { id: userId }, select: { sessionVersion: true } }))?.sessionVersion ?? 0;
  const value = await encode({ token: { sub: userId, sv }, secret: sessionSecret() });
  return `next-auth.session-token=${value}${orgId ? `; ev-org=${orgId}` : ''}`;
}
