// Hostile request bodies: malformed JSON, wrong types for every field of every POST endpoint,
// oversized and streamed bodies. SQLite.
// Cases: 95 malformed-JSON (19 bodies x 5 endpoints) + 40 top-level/deep-nesting (8 x 5)
//        + 85 wrong-type field rows + 14 size/streaming rows = 234.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as single from '@/app/v1/verify/single/route';
import * as verify from '@/app/v1/verify/route';
import * as bulk from '@/app/v1/verify/bulk/route';
import * as webhooks from '@/app/v1/webhooks/route';
import * as keys from '@/app/v1/keys/route';
import { call, setup } from '../api/harness';
import { bounded, deep, expectError, expectSane, send } from './hostile';

const ENDPOINTS = {
  single: { handler: single.POST, field: 'email', ok: { email: 'valid@example.com' } },
  verify: { handler: verify.POST, field: 'email', ok: { email: 'valid@example.com' } },
  bulk: { handler: bulk.POST, field: 'emails', ok: { emails: ['valid@example.com'] } },
  webhooks: { handler: webhooks.POST, field: 'url', ok: { url: 'http://example.com/hook' } },
  keys: { handler: keys.POST, field: 'name', ok: { name: 'k' } },
} as const;
type EndpointName = keyof typeof ENDPOINTS;
const NAMES = Object.keys(ENDPOINTS) as EndpointName[];

// Bodies that are not JSON at all: always 400 invalid_request, param "body".
const MALFORMED: [string, string][] = [
  ['empty body', ''],
  ['whitespace only', '  \n\t '],
  ['lone brace', '{'],
  ['truncated object', '{"email": "valid@example.com"'],
  ['truncated string', '{"email": "valid@exam'],
  ['trailing garbage', '{"email": "valid@example.com"}garbage'],
  ['extra closing brace', '{"email": "valid@example.com"}}'],
  ['two documents', '{"a":1} {"a":2}'],
  ['UTF-8 BOM before the object', '\uFEFF{"email": "valid@example.com"}'],
  ['NaN literal', '{"email": NaN}'],
  ['Infinity literal', '{"email": -Infinity}'],
  ['single quotes', "{'email': 'valid@example.com'}"],
  ['unquoted key', '{email: "valid@example.com"}'],
  ['trailing comma', '{"email": "valid@example.com",}'],
  ['raw NUL inside a string', '{"email": "a\u0000@b.com"}'],
  ['binary junk', '\u0000\u0001\u0002\u00ff\ufffd'],
  ['HTML', '<html><body>hi</body></html>'],
  ['JS comment', '/* hi */ {"email": "valid@example.com"}'],
  ['3,000 unclosed brackets', '['.repeat(3_000)],
];

// Valid JSON of the wrong top-level shape (or absurdly deep): 400 invalid_request.
const TOP_LEVEL: [string, string][] = [
  ['array', '[]'],
  ['number', '1'],
  ['string', '"valid@example.com"'],
  ['null', 'null'],
  ['boolean', 'true'],
  ['huge number', '1e999'],
  ['10,000-deep array [[[…]]]', deep(10_000, '[', ']')],
  ['100,000-deep array', deep(100_000, '[', ']')],
];

const long = (n: number) => 'x'.repeat(n);
const deepObject = (n: number) => deep(n, '{"a":', '}');

// [endpoint, case, raw JSON body, expected status, expected error, expected param]
const FIELDS: [EndpointName, string, string, number, string | null, string | null][] = [];
for (const name of ['single', 'verify'] as const) {
  FIELDS.push(
    [name, 'email missing', '{}', 400, 'invalid_request', 'email'],
    [name, 'email a number', '{"email": 123}', 400, 'invalid_request', 'email'],
    [name, 'email a huge number', '{"email": 1e999}', 400, 'invalid_request', 'email'],
    [name, 'email null', '{"email": null}', 400, 'invalid_request', 'email'],
    [name, 'email boolean', '{"email": true}', 400, 'invalid_request', 'email'],
    [name, 'email an array', '{"email": ["valid@example.com"]}', 400, 'invalid_request', 'email'],
    [name, 'email an object', '{"email": {"toString": "valid@example.com"}}', 400, 'invalid_request', 'email'],
    [name, 'email 10,000-deep array', `{"email": ${deep(10_000, '[', ']')}}`, 400, 'invalid_request', 'email'],
    [name, 'email 10,000-deep object {"a":{"a":…}}', `{"email": ${deepObject(10_000)}}`, 400, 'invalid_request', 'email'],
    [name, 'email only under __proto__', '{"__proto__": {"email": "valid@example.com"}}', 400, 'invalid_request', 'email'],
    [name, 'email only under constructor.prototype', '{"constructor": {"prototype": {"email": "valid@example.com"}}}', 400, 'invalid_request', 'email'],
    [name, 'duplicate keys: last (a string) wins', '{"email": 1, "email": "valid@example.com"}', 200, null, null],
    [name, 'duplicate keys: last (a number) wins', '{"email": "valid@example.com", "email": 1}', 400, 'invalid_request', 'email'],
    [name, 'extra __proto__ pollution attempt', '{"email": "valid@example.com", "__proto__": {"isAdmin": true}, "constructor": {"x": 1}}', 200, null, null],
  );
}
FIELDS.push(
  ['bulk', 'emails missing', '{}', 400, 'invalid_request', 'emails'],
  ['bulk', 'emails a string', '{"emails": "valid@example.com"}', 400, 'invalid_request', 'emails'],
  ['bulk', 'emails a number', '{"emails": 5}', 400, 'invalid_request', 'emails'],
  ['bulk', 'emails null', '{"emails": null}', 400, 'invalid_request', 'emails'],
  ['bulk', 'emails an array-like object', '{"emails": {"0": "valid@example.com", "length": 1}}', 400, 'invalid_request', 'emails'],
  ['bulk', 'emails empty', '{"emails": []}', 400, 'invalid_request', 'emails'],
  ['bulk', 'emails with a number', '{"emails": ["valid@example.com", 1]}', 400, 'invalid_request', 'emails.1'],
  ['bulk', 'emails with null', '{"emails": [null]}', 400, 'invalid_request', 'emails.0'],
  ['bulk', 'emails with a nested array', '{"emails": [["valid@example.com"]]}', 400, 'invalid_request', 'emails.0'],
  ['bulk', 'emails with an object', '{"emails": [{}]}', 400, 'invalid_request', 'emails.0'],
  ['bulk', 'emails 10,000-deep', `{"emails": ${deep(10_000, '[', ']', '"a@b.com"')}}`, 400, 'invalid_request', 'emails.0'],
  ['bulk', 'emails under __proto__', '{"__proto__": {"emails": ["valid@example.com"]}}', 400, 'invalid_request', 'emails'],
  ['bulk', 'emails length lie (huge length field)', '{"emails": {"length": 1e12}}', 400, 'invalid_request', 'emails'],
  ['bulk', 'rows a string', '{"emails": ["valid@example.com"], "rows": "x", "columns": ["c"]}', 400, 'invalid_request', 'rows'],
  ['bulk', 'rows of numbers', '{"emails": ["valid@example.com"], "rows": [1], "columns": ["c"]}', 400, 'invalid_request', 'rows.0'],
  ['bulk', 'rows flat strings', '{"emails": ["valid@example.com"], "rows": ["a"], "columns": ["c"]}', 400, 'invalid_request', 'rows.0'],
  ['bulk', 'row cell a number', '{"emails": ["valid@example.com"], "rows": [[1]], "columns": ["c"]}', 400, 'invalid_request', 'rows.0.0'],
  ['bulk', 'row cell null', '{"emails": ["valid@example.com"], "rows": [[null]], "columns": ["c"]}', 400, 'invalid_request', 'rows.0.0'],
  [
    'bulk',
    'a row of 1001 cells',
    JSON.stringify({ emails: ['valid@example.com'], rows: [Array.from({ length: 1001 }, () => 'a')], columns: ['c'] }),
    400,
    'invalid_request',
    'rows.0',
  ],
  ['bulk', 'rows null', '{"emails": ["valid@example.com"], "rows": null, "columns": ["c"]}', 400, 'invalid_request', 'rows'],
  ['bulk', 'rows without columns', '{"emails": ["valid@example.com"], "rows": [["a"]]}', 400, 'invalid_request', 'columns'],
  ['bulk', 'rows count differs from emails', '{"emails": ["valid@example.com"], "rows": [["a"], ["b"]], "columns": ["c"]}', 400, 'invalid_request', 'rows'],
  ['bulk', 'columns a string', '{"emails": ["valid@example.com"], "columns": "c"}', 400, 'invalid_request', 'columns'],
  ['bulk', 'columns of numbers', '{"emails": ["valid@example.com"], "columns": [1]}', 400, 'invalid_request', 'columns.0'],
  ['bulk', 'columns null', '{"emails": ["valid@example.com"], "columns": null}', 400, 'invalid_request', 'columns'],
  [
    'bulk',
    '1001 columns',
    JSON.stringify({ emails: ['valid@example.com'], columns: Array.from({ length: 1001 }, (_, i) => `c${i}`) }),
    400,
    'invalid_request',
    'columns',
  ],
  ['bulk', 'filename a number', '{"emails": ["valid@example.com"], "filename": 1}', 400, 'invalid_request', 'filename'],
  ['bulk', 'filename an array', '{"emails": ["valid@example.com"], "filename": ["a.csv"]}', 400, 'invalid_request', 'filename'],
  ['bulk', 'filename of 256 chars', JSON.stringify({ emails: ['valid@example.com'], filename: long(256) }), 400, 'invalid_request', 'filename'],
  [
    'bulk',
    'filename with path traversal and CRLF is just data',
    JSON.stringify({ emails: ['valid@example.com', 'x@y.com'], filename: '../../etc/passwd\r\nX-Injected: 1' }),
    200,
    null,
    null,
  ],
  ['webhooks', 'url missing', '{}', 400, 'invalid_request', 'url'],
  ['webhooks', 'url a number', '{"url": 1}', 400, 'invalid_request', 'url'],
  ['webhooks', 'url null', '{"url": null}', 400, 'invalid_request', 'url'],
  ['webhooks', 'url an array', '{"url": ["http://example.com"]}', 400, 'invalid_request', 'url'],
  ['webhooks', 'url an object', '{"url": {"href": "http://example.com"}}', 400, 'invalid_request', 'url'],
  ['webhooks', 'url empty', '{"url": ""}', 400, 'invalid_request', 'url'],
  ['webhooks', 'url not a URL', '{"url": "not a url"}', 400, 'invalid_request', 'url'],
  ['webhooks', 'url relative', '{"url": "/hooks/1"}', 400, 'invalid_request', 'url'],
  ['webhooks', 'url over 2048 chars', JSON.stringify({ url: `http://example.com/${long(3000)}` }), 400, 'invalid_request', 'url'],
  ['webhooks', 'url 10,000-deep object', `{"url": ${deepObject(10_000)}}`, 400, 'invalid_request', 'url'],
  ['webhooks', 'events a string', '{"url": "http://127.0.0.1/h", "events": "bulk.completed"}', 400, 'invalid_request', 'events'],
  ['webhooks', 'events empty', '{"url": "http://127.0.0.1/h", "events": []}', 400, 'invalid_request', 'events'],
  ['webhooks', 'events unknown', '{"url": "http://127.0.0.1/h", "events": ["user.deleted"]}', 400, 'invalid_request', 'events.0'],
  ['webhooks', 'events of numbers', '{"url": "http://127.0.0.1/h", "events": [1]}', 400, 'invalid_request', 'events.0'],
  ['webhooks', 'events null', '{"url": "http://127.0.0.1/h", "events": null}', 400, 'invalid_request', 'events'],
  ['webhooks', 'description a number', '{"url": "http://127.0.0.1/h", "description": 1}', 400, 'invalid_request', 'description'],
  ['webhooks', 'description an array', '{"url": "http://127.0.0.1/h", "description": ["x"]}', 400, 'invalid_request', 'description'],
  ['webhooks', 'description of 501 chars', JSON.stringify({ url: 'http://127.0.0.1/h', description: long(501) }), 400, 'invalid_request', 'description'],
  ['webhooks', 'url under __proto__', '{"__proto__": {"url": "http://127.0.0.1/h"}}', 400, 'invalid_request', 'url'],
  ['keys', 'name a number', '{"name": 1}', 400, 'invalid_request', 'name'],
  ['keys', 'name an array', '{"name": ["k"]}', 400, 'invalid_request', 'name'],
  ['keys', 'name an object', '{"name": {}}', 400, 'invalid_request', 'name'],
  ['keys', 'name null', '{"name": null}', 400, 'invalid_request', 'name'],
  ['keys', 'name boolean', '{"name": false}', 400, 'invalid_request', 'name'],
  ['keys', 'name of 101 chars', JSON.stringify({ name: long(101) }), 400, 'invalid_request', 'name'],
  ['keys', 'name 10,000-deep array', `{"name": ${deep(10_000, '[', ']')}}`, 400, 'invalid_request', 'name'],
  ['keys', 'name with control chars and markup is just data', JSON.stringify({ name: '\u0000<script>alert(1)</script>\r\n' }), 201, null, null],
  ['keys', 'no name at all', '{}', 201, null, null],
);

const BODY_LIMIT = 2048;

function streamOf(chunks: Uint8Array[], opts: { failAfter?: number } = {}): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (opts.failAfter !== undefined && i >= opts.failAfter) {
        controller.error(new Error('client went away'));
        return;
      }
      if (i < chunks.length) controller.enqueue(chunks[i++]!);
      else controller.close();
    },
  });
}

describe('hostile bodies (sqlite)', () => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  const previousLimit = process.env.EV_MAX_BODY_BYTES;

  beforeAll(async () => {
    delete process.env.EV_MAX_BODY_BYTES;
    process.env.EV_ALLOW_PRIVATE_NETWORKS = 'false';
    // every case below is one refused creation request of one account: more than a minute's creation rate
    ctx = await setup('sqlite', { EV_CREATE_RATE_PER_MINUTE: '10000' });
  });
  afterAll(async () => {
    if (previousLimit === undefined) delete process.env.EV_MAX_BODY_BYTES;
    else process.env.EV_MAX_BODY_BYTES = previousLimit;
    await ctx.teardown();
  });

  const post = (name: EndpointName, rawBody: string) => bounded(call(ENDPOINTS[name].handler, { method: 'POST', key: ctx.key, rawBody, path: `/v1/${name}` }));

  const malformedCases = NAMES.flatMap((name) => MALFORMED.map(([what, body]) => [name, what, body] as const));
  it.each(malformedCases)('%s: malformed JSON (%s) is 400 invalid_request param body', async (name, _what, body) => {
    expectError(await post(name, body), 400, 'invalid_request', 'body');
  });

  const topLevelCases = NAMES.flatMap((name) => TOP_LEVEL.map(([what, body]) => [name, what, body] as const));
  it.each(topLevelCases)('%s: top-level %s is 400 invalid_request (413 when past the endpoint byte limit)', async (name, _what, body) => {
    const res = await post(name, body);
    expectSane(res);
    expect([400, 413], res.text.slice(0, 300)).toContain(res.status);
    expect(res.json.error).toBe(res.status === 400 ? 'invalid_request' : 'payload_too_large');
  });

  it.each(FIELDS)('%s: %s', async (name, _what, body, status, error, param) => {
    const res = await post(name, body);
    expectSane(res);
    // the small endpoints (keys 4 KiB, webhooks 16 KiB) refuse 10,000-deep values by size first: also fine
    if (res.status === 413 && body.length > 4096) return expect(res.json.error).toBe('payload_too_large');
    expect(res.status, res.text.slice(0, 300)).toBe(status);
    if (error) expect(res.json.error).toBe(error);
    if (param) expect(res.json.param).toBe(param);
    // prototype pollution never sticks
    expect(({} as any).isAdmin).toBeUndefined();
  });

  const big = (n: number) => JSON.stringify({ emails: ['valid@example.com'], filename: 'x'.repeat(n) });
  const bulkRequest = (init: { body: any; headers?: Record<string, string> }) =>
    new Request('http://localhost/v1/verify/bulk', {
      method: 'POST',
      headers: { authorization: `Bearer ${ctx.key}`, 'x-ev-sandbox': 'true', 'content-type': 'application/json', ...init.headers },
      body: init.body,
      duplex: 'half',
    } as RequestInit);
  const enc = (s: string) => new TextEncoder().encode(s);

  // [case, build request, handler, expected status, expected error]
  const SIZES: [string, () => Request, keyof typeof ENDPOINTS, number, string | null][] = [
    ['bulk body just over EV_MAX_BODY_BYTES', () => bulkRequest({ body: big(BODY_LIMIT) }), 'bulk', 413, 'payload_too_large'],
    ['bulk body 1 MB over the limit', () => bulkRequest({ body: big(1_000_000) }), 'bulk', 413, 'payload_too_large'],
    [
      'bulk Content-Length over the limit (refused before reading)',
      () => bulkRequest({ body: big(10), headers: { 'content-length': String(BODY_LIMIT + 1) } }),
      'bulk',
      413,
      'payload_too_large',
    ],
    [
      'bulk Content-Length lies small, body large',
      () => bulkRequest({ body: big(BODY_LIMIT * 4), headers: { 'content-length': '10' } }),
      'bulk',
      413,
      'payload_too_large',
    ],
    [
      'bulk Content-Length not a number',
      () => bulkRequest({ body: '{"emails":["valid@example.com"]}', headers: { 'content-length': 'abc' } }),
      'bulk',
      200,
      null,
    ],
    [
      'bulk streamed without Content-Length, under the limit',
      () => bulkRequest({ body: streamOf([enc('{"emails":'), enc('["valid@example.com"'), enc(']}')]) }),
      'bulk',
      200,
      null,
    ],
    [
      'bulk streamed without Content-Length, over the limit in 1-byte-ish chunks',
      () => bulkRequest({ body: streamOf(Array.from({ length: 300 }, () => enc('          '))) }),
      'bulk',
      413,
      'payload_too_large',
    ],
    ['bulk streamed, one chunk far over the limit', () => bulkRequest({ body: streamOf([enc(big(100_000))]) }), 'bulk', 413, 'payload_too_large'],
    ['bulk streamed, client aborts mid-body', () => bulkRequest({ body: streamOf([enc('{"emails":[')], { failAfter: 1 }) }), 'bulk', 400, 'invalid_request'],
    [
      'bulk invalid UTF-8 bytes',
      () =>
        bulkRequest({
          body: new Uint8Array([
            0x7b, 0x22, 0x65, 0x6d, 0x61, 0x69, 0x6c, 0x73, 0x22, 0x3a, 0x5b, 0x22, 0xff, 0xfe, 0xc3, 0x40, 0x62, 0x2e, 0x63, 0x22, 0x5d, 0x7d,
          ]),
        }),
      'bulk',
      200,
      null,
    ],
    [
      'single body over its 64 KiB limit',
      () =>
        new Request('http://localhost/v1/verify/single', {
          method: 'POST',
          headers: { authorization: `Bearer ${ctx.key}`, 'x-ev-sandbox': 'true' },
          body: JSON.stringify({ email: 'x'.repeat(70_000) }),
        }),
      'single',
      413,
      'payload_too_large',
    ],
    [
      'verify body over its 64 KiB limit, streamed',
      () =>
        new Request('http://localhost/v1/verify', {
          method: 'POST',
          headers: { authorization: `Bearer ${ctx.key}`, 'x-ev-sandbox': 'true' },
          body: streamOf(Array.from({ length: 100 }, () => enc('x'.repeat(1000)))),
          duplex: 'half',
        } as RequestInit),
      'verify',
      413,
      'payload_too_large',
    ],
    [
      'webhooks body over its 16 KiB limit',
      () =>
        new Request('http://localhost/v1/webhooks', {
          method: 'POST',
          headers: { authorization: `Bearer ${ctx.key}` },
          body: JSON.stringify({ url: 'http://127.0.0.1/', description: 'x'.repeat(20_000) }),
        }),
      'webhooks',
      413,
      'payload_too_large',
    ],
    [
      'keys body over its 4 KiB limit',
      () =>
        new Request('http://localhost/v1/keys', {
          method: 'POST',
          headers: { authorization: `Bearer ${ctx.key}` },
          body: JSON.stringify({ name: 'x'.repeat(5000) }),
        }),
      'keys',
      413,
      'payload_too_large',
    ],
  ];
  it.each(SIZES)('size: %s', async (_what, build, name, status, error) => {
    process.env.EV_MAX_BODY_BYTES = String(BODY_LIMIT);
    let res: Awaited<ReturnType<typeof send>>;
    try {
      res = await send(ENDPOINTS[name].handler, build());
    } finally {
      delete process.env.EV_MAX_BODY_BYTES;
    }
    expectSane(res);
    expect(res.status, res.text.slice(0, 300)).toBe(status);
    if (error) expect(res.json.error).toBe(error);
    if (error === 'payload_too_large') expect(typeof res.json.limit).toBe('number');
  });
});
