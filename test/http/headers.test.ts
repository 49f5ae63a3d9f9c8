import { afterAll, beforeAll, expect, it } from 'vitest';
import type { NextConfig } from 'next';
import { startServer, type Served } from './server';

// The security headers of next.config.js on every kind of answer the built server gives: pages,
// redirects, API answers and errors, Next.js's own 404 and 405, the proxy's 400, static files;
// byte for byte as configured (Next.js rewrites header values whose rule has parameters).
let server: Served;

beforeAll(async () => {
  server = await startServer({}, 1);
});

afterAll(async () => {
  await server?.stop();
});

it('sends every configured security header, unchanged, on every kind of answer', async () => {
  // next.config.js is plain JavaScript (no declarations): typed here as Next.js reads it
  const nextConfig = (await import('../../next.config.js' as string)).default as NextConfig;
  const [rule] = await nextConfig.headers!();
  const expected = rule!.headers;
  expect(expected.map((h) => h.key)).toContain('Content-Security-Policy');
  const key = { authorization: `Bearer ${server.keys[0]}`, 'x-ev-sandbox': 'true' };
  const answers: [string, RequestInit, number][] = [
    ['/health', {}, 200],
    ['/', {}, 307],
    ['/signin', {}, 200],
    ['/no-such-page', {}, 404],
    ['/v1/verify/single', { method: 'POST', headers: { ...key, 'content-type': 'application/json' }, body: '{"email":"valid@example.com"}' }, 200],
    ['/v1/verify/single', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"email":"valid@example.com"}' }, 401],
    ['/v1/verify/single', { method: 'PUT', headers: key }, 405],
    ['/v1/history/%ZZ', { headers: key }, 400],
    ['/_next/static/no-such-file.js', {}, 404],
  ];
  for (const [path, init, status] of answers) {
    const response = await fetch(`${server.url}${path}`, { ...init, redirect: 'manual' });
    await response.arrayBuffer();
    expect(response.status, path).toBe(status);
    for (const { key: name, value } of expected) expect(response.headers.get(name), `${name} on ${init.method ?? 'GET'} ${path}`).toBe(value);
  }
});
