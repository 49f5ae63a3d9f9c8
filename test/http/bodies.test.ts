import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { health, repeated, send, startServer, type Served } from './server';

// Hostile clients against the built server with its real default limits: every body is refused
// with a 4xx JSON error (or taken, when it is a real list), the process never exits, /health keeps
// answering within 2 s and the resident memory stays under RSS_BOUND_MB.
const RSS_BOUND_MB = 700;
const MB = 1024 * 1024;

let server: Served;
const auth = (i = 0, sandbox = true): Record<string, string> => ({
  authorization: `Bearer ${server.keys[i]}`,
  ...(sandbox ? { 'x-ev-sandbox': 'true' } : {}),
});

beforeAll(async () => {
  server = await startServer();
});

afterAll(async () => {
  await server?.stop();
});

async function stillServing() {
  expect(server.exited(), server.log()).toBeNull();
  expect(await health(server.url)).toBeLessThan(2000);
  expect(server.peakRssMb()).toBeLessThan(RSS_BOUND_MB);
}

function expectJsonError(answer: { status: number; json: any; text: string }, status: number, code: string) {
  expect(answer.status, answer.text).toBe(status);
  expect(answer.json?.error, answer.text).toBe(code);
}

// Every route that takes a body, with the caller it needs to get as far as reading it.
const ROUTES: [string, (() => Record<string, string>) | null][] = [
  ['/v1/verify', () => auth()],
  ['/v1/verify/single', () => auth()],
  ['/v1/keys', () => auth()],
  ['/v1/webhooks', () => auth()],
  ['/api/signup', null],
  ['/api/auth/callback/credentials', null],
];

/** The 60 MB `[{},{},...]` body, built once for every route (half a second of this process's CPU a build). */
let flood: Buffer | undefined;
const floodBody = () =>
  (flood ??= Buffer.from(
    `[${Array(20 * MB)
      .fill('{}')
      .join(',')}]`,
  ));

describe('bodies over real HTTP', () => {
  it.each(ROUTES)('%s: a 60 MB [{},{},...] body is refused with 413 JSON, declared or chunked', async (path, headers) => {
    const declared = await send(server.url, path, { headers: headers?.() ?? {}, body: floodBody() });
    expectJsonError(declared, 413, 'payload_too_large');
    const chunked = await send(server.url, path, { headers: headers?.() ?? {}, stream: repeated('[', '{}', 20 * MB, ']'), paceFrom: 0 });
    expectJsonError(chunked, 413, 'payload_too_large');
    await stillServing();
  });

  it.each(ROUTES)('%s: 100,000 nested brackets are a 4xx, never a crash', async (path, headers) => {
    const answer = await send(server.url, path, { headers: headers?.() ?? {}, body: `{"email":${'['.repeat(100_000)}${']'.repeat(100_000)}}` });
    expect(answer.status, answer.text).toBeGreaterThanOrEqual(400);
    expect(answer.status, answer.text).toBeLessThan(500);
    expect(answer.json?.error, answer.text).toBeTruthy();
    await stillServing();
  });

  it('bulk: a 60 MB {"emails":[{},{},...]} body stops at its first element (400), however large', async () => {
    const answer = await send(server.url, '/v1/verify/bulk', { headers: auth(), stream: repeated('{"emails":[', '{}', 20 * MB, ']}') });
    expectJsonError(answer, 400, 'invalid_request');
    expect(answer.json.param).toBe('emails.0');
    await stillServing();
  });

  it('bulk: 60 MB of nested brackets under an unknown field is read without building it', async () => {
    const depth = 30 * MB;
    const answer = await send(server.url, '/v1/verify/bulk', {
      headers: auth(),
      stream: (async function* () {
        yield Buffer.from('{"x":');
        for (let i = 0; i < depth; i += MB) yield Buffer.alloc(MB, '[');
        for (let i = 0; i < depth; i += MB) yield Buffer.alloc(MB, ']');
        yield Buffer.from(',"emails":["a@example.com"]}');
      })(),
    });
    // an unknown field is skipped, so this is a one-address request
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.total_emails).toBe(1);
    await stillServing();
  });

  it('bulk: a body over EV_MAX_BODY_BYTES (128 MiB) is refused while it streams in', async () => {
    const answer = await send(server.url, '/v1/verify/bulk', {
      headers: auth(),
      stream: repeated('{"emails":[', '"a@example.com"', 10 * MB, ']}'),
      paceFrom: 127 * MB,
      timeoutMs: 60_000,
    });
    expectJsonError(answer, 413, 'payload_too_large');
    await stillServing();
  });

  it('an Idempotency-Key never buffers past the route limit: 4 parallel 240 MB bodies to /v1/keys', async () => {
    const big = Buffer.alloc(240 * MB, ' ');
    const answers = await Promise.all([0, 1, 2, 3].map((i) => send(server.url, '/v1/keys', { headers: { ...auth(), 'idempotency-key': `k${i}` }, body: big })));
    for (const answer of answers) {
      expectJsonError(answer, 413, 'payload_too_large');
      expect(answer.ms).toBeLessThan(5000);
    }
    const chunked = await send(server.url, '/v1/keys', {
      headers: { ...auth(), 'idempotency-key': 'chunked' },
      stream: repeated('{"name":"', ' ', 240 * MB, '"}'),
      paceFrom: 0,
    });
    expectJsonError(chunked, 413, 'payload_too_large');
    await stillServing();
  });

  it('slow bodies hold only their own connections', async () => {
    const slow = Array.from({ length: 30 }, () =>
      send(server.url, '/v1/verify/bulk', {
        headers: auth(),
        timeoutMs: 15_000,
        stream: (async function* () {
          yield Buffer.from('{"emails":["a@example.com"');
          for (let i = 0; i < 20; i++) {
            await new Promise((r) => setTimeout(r, 250));
            yield Buffer.from(' ');
          }
          yield Buffer.from(']}');
        })(),
      }).catch((error: Error) => error),
    );
    await new Promise((r) => setTimeout(r, 500));
    const during = await send(server.url, '/v1/verify', { headers: auth(1), body: '{"email":"valid@example.com"}' });
    expect(during.status).toBe(200);
    expect(during.ms).toBeLessThan(2000);
    await stillServing();
    // one account's bulk requests beyond its EV_HEAVY_REQUESTS_PER_ACCOUNT slots (2) are refused at once (lib/api/heavy.ts)
    const statuses = (await Promise.all(slow)).map((answer) => (answer as { status?: number }).status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(2);
    expect(statuses.filter((status) => status === 429)).toHaveLength(28);
  });

  it('a list of 100,000 rows with 5 columns (about 10 MB) is taken as a job', async () => {
    const rows = Array.from({ length: 100_000 }, (_, i) =>
      JSON.stringify([`First${i}`, `Last${i}`, `user${i}@example${i % 500}.com`, `Company ${i % 97}`, 'DE']),
    );
    const body = `{"columns":["first","last","email","company","country"],"email_column":2,"filename":"list.csv","rows":[${rows.join(',')}]}`;
    const answer = await send(server.url, '/v1/verify/bulk', { headers: auth(), body, timeoutMs: 60_000 });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json).toMatchObject({ status: 'queued', total_emails: 100_000, valid_emails: 100_000 });
    await stillServing();
  });
});

describe('paths, methods and headers over real HTTP', () => {
  const MALFORMED = ['/v1/verify/bulk/status/%E0%A4%A', '/v1/webhooks/%ZZ', '/v1/keys/%C0%80x', '/api/auth/%ZZ', '/v1/verify/bulk/%E0/download'];

  it.each(MALFORMED)('%s is a 400 JSON error', async (path) => {
    for (const method of ['GET', 'POST', 'DELETE']) {
      const answer = await send(server.url, path, { method, headers: auth() });
      expectJsonError(answer, 400, 'invalid_request');
    }
  });

  it('a malformed path on a page is a 400, not a 500', async () => {
    const answer = await send(server.url, '/jobs/%ZZ');
    expect(answer.status).toBe(400);
  });

  it('unknown methods and odd headers are 4xx, never 500', async () => {
    const cases: [string, string, Record<string, string>][] = [
      ['PUT', '/v1/verify', auth()],
      ['PATCH', '/v1/keys', auth()],
      ['DELETE', '/v1/verify/single', auth()],
      ['POST', '/v1/verify', { ...auth(), 'content-type': 'text/plain' }],
      ['POST', '/v1/verify', { authorization: 'Bearer \u00ff\u00fe', 'x-ev-sandbox': 'true' }],
      ['POST', '/v1/verify', { authorization: `Bearer ${'k'.repeat(8000)}` }],
      ['POST', '/v1/verify', { ...auth(), 'x-ev-sandbox': 'maybe' }],
      ['POST', '/v1/verify', { ...auth(), 'idempotency-key': 'x'.repeat(5000) }],
      ['GET', '/v1/history?limit=-1&cursor=%00', auth()],
      ['POST', '/api/signup', { 'content-type': 'application/x-www-form-urlencoded', origin: 'null' }],
      ['GET', '/api/auth/session', { cookie: 'next-auth.session-token=garbage' }],
    ];
    for (const [method, path, headers] of cases) {
      const answer = await send(server.url, path, { method, headers, body: method === 'GET' ? undefined : '{"email":"valid@example.com"}' });
      expect(answer.status, `${method} ${path}: ${answer.text}`).toBeLessThan(500);
    }
    await stillServing();
  });
});
