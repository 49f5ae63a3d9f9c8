import { expect } from 'vitest';
import { assertMatchesContract } from '../api/contract';
import { answerOf } from '../api/harness';

type RouteHandler = (request: Request, segment: { params: Promise<any> }) => Promise<Response>;

export const CALL_TIMEOUT_MS = 10_000;

/** Fails instead of hanging: every hostile call is bounded. */
export async function bounded<T>(what: Promise<T>, ms = CALL_TIMEOUT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`hang: no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([what, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

/** Invokes a handler with a hand-built Request (for streamed bodies, explicit Content-Length, raw paths); checks the answer against the OpenAPI document. */
export async function send(handler: RouteHandler, request: Request, params: Record<string, string> = {}): Promise<Reply> {
  return bounded(
    (async () => {
      const reply = await answerOf(await handler(request, { params: Promise.resolve(params) }));
      assertMatchesContract(handler, reply);
      return reply;
    })(),
  );
}

/** Never a 500, never a stack trace, internals or HTML; errors always in the one envelope. */
export function expectSane(res: Reply): void {
  expect(res.status, `unexpected 5xx: ${res.text.slice(0, 300)}`).toBeLessThan(500);
  expect(res.text).not.toMatch(/\bat [^\n]*\.[cm]?[jt]sx?:\d+/);
  expect(res.text).not.toMatch(/\b(Type|Range|Syntax|Reference)?Error:/);
  expect(res.text).not.toMatch(/<html|<!DOCTYPE/i);
  expect(res.text).not.toMatch(/prisma|node_modules|\/work\//i);
  if (res.status >= 400) {
    expect(res.json, `error body is not JSON: ${res.text.slice(0, 200)}`).not.toBeNull();
    expect(typeof res.json.error).toBe('string');
    expect(typeof res.json.message).toBe('string');
  }
}

/** Sane, and the given status/error (and param when given). */
export function expectError(res: Reply, status: number, error: string, param?: string): void {
  expectSane(res);
  expect(res.status, res.text.slice(0, 300)).toBe(status);
  expect(res.json.error).toBe(error);
  if (param !== undefined) expect(res.json.param).toBe(param);
}

export const REASONS = [
  'accepted_email',
  'rejected_email',
  'invalid_email',
  'invalid_domain',
  'no_mx',
  'accept_all',
  'disposable_email',
  'role_account',
  'low_quality',
  'timeout',
  'no_connect',
  'unavailable_smtp',
  'unexpected_error',
];

export const deep = (depth: number, open: string, close: string, inner = '1') => open.repeat(depth) + inner + close.repeat(depth);
