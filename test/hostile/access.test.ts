// Hostile query strings, path ids, cross-account access, auth headers and session-cookie CSRF.
// Runs on SQLite and PostgreSQL (every row twice).
// Cases per dialect: 43 query-string rows + 40 path-id rows (5 routes x 8 ids) + 13 cross-account
//   + 21 auth (11 bad headers, lowercase bearer, revoked, 8 deleted-account) + 6 session-cookie = 123;
//   x 2 dialects = 246.
import { encode } from 'next-auth/jwt';
import { NextRequest } from 'next/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as single from '@/app/v1/verify/single/route';
import * as bulk from '@/app/v1/verify/bulk/route';
import * as bulkJob from '@/app/v1/verify/bulk/[jobId]/route';
import * as status from '@/app/v1/verify/bulk/status/[jobId]/route';
import * as download from '@/app/v1/verify/bulk/download/[jobId]/route';
import * as history from '@/app/v1/history/route';
import * as webhooks from '@/app/v1/webhooks/route';
import * as webhookById from '@/app/v1/webhooks/[id]/route';
import * as webhookTest from '@/app/v1/webhooks/[id]/test/route';
import * as deliveries from '@/app/v1/webhooks/[id]/deliveries/route';
import * as keys from '@/app/v1/keys/route';
import * as keyById from '@/app/v1/keys/[id]/route';
import * as account from '@/app/v1/account/route';
import { ensureAccount } from '@/lib/accounts/users';
import { createApiKey } from '@/lib/accounts/keys';
import { forgetKeyLookups } from '@/lib/accounts/key-cache';
import { sessionSecret } from '@/lib/config/secret';
import { DIALECTS } from '../databases';
import { call, setup } from '../api/harness';
import { bounded, expectError, expectSane, send } from './hostile';

type Handler = (request: Request, segment: { params: Promise<any> }) => Promise<Response>;

// [endpoint, query string, expected status, expected param (400s)]
const QUERIES: [string, string, number, string | null][] = [
  ['history', 'limit=-1', 400, 'limit'],
  ['history', 'limit=0', 400, 'limit'],
  ['history', 'limit=abc', 400, 'limit'],
  ['history', 'limit=1e9', 400, 'limit'],
  ['history', 'limit=1.5', 400, 'limit'],
  ['history', 'limit=', 400, 'limit'],
  ['history', 'limit=NaN', 400, 'limit'],
  ['history', 'limit=Infinity', 400, 'limit'],
  ['history', 'limit=0x10', 200, null],
  ['history', 'limit=5&limit=abc', 400, 'limit'],
  ['history', 'limit=abc&limit=5', 200, null],
  ['history', 'cursor=garbage', 400, 'cursor'],
  ['history', `cursor=${'9'.repeat(5000)}`, 400, 'cursor'],
  ['history', 'cursor=99999999999999999999999999', 400, 'cursor'],
  ['history', 'cursor=2147483648', 400, 'cursor'],
  ['history', 'cursor=2147483647', 200, null],
  ['history', "cursor=1'%20OR%201=1%20--", 400, 'cursor'],
  ['history', 'cursor=-1', 400, 'cursor'],
  ['history', 'sandbox=yes', 400, 'sandbox'],
  ['history', "email=' OR 1=1 --", 200, null],
  ['history', `email=${'a'.repeat(5000)}`, 400, 'email'],
  ['history', 'email=%00%0d%0a', 400, 'email'],
  ['history', 'email=a%0d%0aRCPT%20TO:<x@y.com>', 200, null],
  ['history', 'unknown=1&__proto__=x&constructor=y', 200, null],
  ['bulk-list', 'limit=-1', 400, 'limit'],
  ['bulk-list', 'limit=abc', 400, 'limit'],
  ['bulk-list', 'limit=1e9', 400, 'limit'],
  ['bulk-list', 'cursor=garbage!!', 400, 'cursor'],
  ['bulk-list', `cursor=${'A'.repeat(10_000)}`, 400, 'cursor'],
  ['bulk-list', "cursor=' OR 1=1 --", 400, 'cursor'],
  ['bulk-list', `cursor=${Buffer.from(JSON.stringify({ t: 'x', id: 1 })).toString('base64url')}`, 400, 'cursor'],
  ['bulk-list', `cursor=${Buffer.from(JSON.stringify({ t: 1700000000000, id: "' OR 1=1 --" })).toString('base64url')}`, 400, 'cursor'],
  ['bulk-list', `cursor=${Buffer.from(JSON.stringify({ t: -1, id: 'job_x' })).toString('base64url')}`, 200, null],
  ['bulk-list', `cursor=${Buffer.from('null').toString('base64url')}`, 400, 'cursor'],
  ['status', 'limit=-1', 400, 'limit'],
  ['status', 'limit=1e9', 400, 'limit'],
  ['status', 'offset=-1', 400, 'offset'],
  ['status', 'offset=1e20', 400, 'offset'],
  ['status', 'filter=everything', 400, 'filter'],
  ['download', 'filter=everything', 400, 'filter'],
  ['download', "filter=' OR 1=1 --", 400, 'filter'],
  ['download', 'filter=deliverable&filter=../../etc', 400, 'filter'],
];

const SQLISH_IDS = [
  ['SQL quote', "' OR 1=1 --"],
  ['SQL union', 'x\' UNION SELECT * FROM "User" --'],
  ['SQL wildcard', '%'],
  ['10,000-char id', 'job_'.padEnd(10_000, 'a')],
  ['unicode id', 'job_ёжик😀'],
  ['encoded path traversal', '..%2F..%2Fetc%2Fpasswd'],
  ['path traversal', '../../../etc/passwd'],
  ['NUL byte', 'job_\u0000x'],
] as const;

describe.each(DIALECTS)('hostile access on %s', (dialect) => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  let other: { id: string; email: string; key: string; jobId: string; webhookId: string; keyId: string; marker: string };
  let ownJobId: string;

  beforeAll(async () => {
    process.env.EV_ALLOW_PRIVATE_NETWORKS = 'true'; // only so the other account can own a webhook
    ctx = await setup(dialect);
    const acct = await ensureAccount(ctx.database, `victim-${dialect}@example.com`);
    const { key, info } = await createApiKey(ctx.database, acct.id, 'victim-key-name');
    const marker = 'secret-victim-marker@victim-corp.example';
    const job = await call(bulk.POST, {
      key,
      body: { emails: [marker, 'valid@victim-corp.example'], rows: [['VICTIM-ROW-1'], ['VICTIM-ROW-2']], columns: ['victim_col'] },
    });
    expect(job.status).toBe(200);
    const hook = await call(webhooks.POST, { key, body: { url: 'http://127.0.0.1:49999/victim-hook', description: 'victim hook' } });
    expect(hook.status).toBe(201);
    other = { id: acct.id, email: acct.email, key, jobId: job.json.job_id, webhookId: hook.json.id, keyId: info.id, marker };
    const own = await call(bulk.POST, { key: ctx.key, body: { emails: ['valid@example.com', 'x@y.com'] } });
    ownJobId = own.json.job_id;
    process.env.EV_ALLOW_PRIVATE_NETWORKS = 'false';
  });
  afterAll(async () => ctx.teardown());

  /** Nothing of the other account in a response: not its ids' data, addresses, rows, key names or hook URLs. */
  function expectNoLeak(text: string) {
    for (const secret of [other.marker, 'victim-corp', 'VICTIM-ROW', 'victim_col', 'victim-key-name', 'victim-hook', 'victim hook', other.email, other.id]) {
      expect(text).not.toContain(secret);
    }
  }

  const QUERY_HANDLERS: Record<string, { handler: Handler; params?: () => Record<string, string>; path: string }> = {
    history: { handler: history.GET, path: '/v1/history' },
    'bulk-list': { handler: bulk.GET, path: '/v1/verify/bulk' },
    status: { handler: status.GET, params: () => ({ jobId: ownJobId }), path: '/v1/verify/bulk/status/x' },
    download: { handler: download.GET, params: () => ({ jobId: ownJobId }), path: '/v1/verify/bulk/download/x' },
  };

  it.each(QUERIES)('query %s ?%s → %i', async (name, query, expected, param) => {
    const target = QUERY_HANDLERS[name]!;
    const res = await bounded(call(target.handler, { key: ctx.key, path: `${target.path}?${query}`, params: target.params?.() }));
    expectSane(res);
    expect(res.status, res.text.slice(0, 300)).toBe(expected);
    if (expected === 400) expect(res.json).toMatchObject({ error: 'invalid_request', param });
    expectNoLeak(res.text);
  });

  it('query bulk-list cursor with an out-of-range date {t: 1e300} → 400', async () => {
    const cursor = Buffer.from(JSON.stringify({ t: 1e300, id: "' OR 1=1 --" })).toString('base64url');
    const res = await bounded(call(bulk.GET, { key: ctx.key, path: `/v1/verify/bulk?cursor=${cursor}` }));
    expectError(res, 400, 'invalid_request', 'cursor');
  });

  // Path ids: [route, method, handler, param name]
  const ID_ROUTES: [string, string, Handler, string][] = [
    ['status', 'GET', status.GET, 'jobId'],
    ['download', 'GET', download.GET, 'jobId'],
    ['cancel job', 'DELETE', bulkJob.DELETE, 'jobId'],
    ['delete webhook', 'DELETE', webhookById.DELETE, 'id'],
    ['webhook deliveries', 'GET', deliveries.GET, 'id'],
  ];
  const idCases = ID_ROUTES.flatMap(([route, method, handler, param]) => SQLISH_IDS.map(([what, id]) => [route, what, method, handler, param, id] as const));
  it.each(idCases)('path id: %s with %s → 404 not_found', async (_route, _what, method, handler, param, id) => {
    const res = await bounded(call(handler, { method, key: ctx.key, params: { [param]: id } }));
    expectError(res, 404, 'not_found');
    expectNoLeak(res.text);
  });

  // Another account's objects: [case, method, handler, params]
  const CROSS: [string, string, Handler, () => Record<string, string>][] = [
    ['status of their job', 'GET', status.GET, () => ({ jobId: other.jobId })],
    ['download of their job', 'GET', download.GET, () => ({ jobId: other.jobId })],
    ['cancel their job', 'DELETE', bulkJob.DELETE, () => ({ jobId: other.jobId })],
    ['their job id upper-cased', 'GET', status.GET, () => ({ jobId: other.jobId.toUpperCase() })],
    ['their job id with trailing space', 'GET', status.GET, () => ({ jobId: `${other.jobId} ` })],
    ['their job id with a LIKE wildcard', 'GET', status.GET, () => ({ jobId: `${other.jobId.slice(0, -2)}%` })],
    ['delete their webhook', 'DELETE', webhookById.DELETE, () => ({ id: other.webhookId })],
    ['their webhook deliveries', 'GET', deliveries.GET, () => ({ id: other.webhookId })],
    ['test-fire their webhook', 'POST', webhookTest.POST, () => ({ id: other.webhookId })],
    ['revoke their key', 'DELETE', keyById.DELETE, () => ({ id: other.keyId })],
    ['revoke their key id with SQL suffix', 'DELETE', keyById.DELETE, () => ({ id: `${other.keyId}' OR '1'='1` })],
    ['revoke a key by empty id', 'DELETE', keyById.DELETE, () => ({ id: '' })],
  ];
  it.each(CROSS)('cross-account: %s → 404 not_found, nothing leaked, nothing changed', async (_what, method, handler, params) => {
    const res = await bounded(call(handler, { method, key: ctx.key, params: params() }));
    expectError(res, 404, 'not_found');
    expectNoLeak(res.text);
    // their objects are untouched
    expect((await call(status.GET, { key: other.key, params: { jobId: other.jobId } })).json.status).toBe('completed');
    const hooks = await call(webhooks.GET, { key: other.key });
    expect(hooks.json.data.map((h: any) => h.id)).toContain(other.webhookId);
    expect((await call(single.POST, { key: other.key, body: { email: 'valid@x.com' } })).status).toBe(200);
  });

  it('cross-account: own lists never show the other account', async () => {
    for (const [handler, path] of [
      [history.GET, '/v1/history?sandbox=true'],
      [bulk.GET, '/v1/verify/bulk'],
      [webhooks.GET, '/v1/webhooks'],
      [keys.GET, '/v1/keys'],
      [account.GET, '/v1/account'],
    ] as const) {
      const res = await bounded(call(handler, { key: ctx.key, path }));
      expectSane(res);
      expect(res.status).toBe(200);
      expectNoLeak(res.text);
    }
  });

  // Auth: [case, headers (no Bearer key from the harness)]
  const AUTH: [string, () => Record<string, string>][] = [
    ['no Authorization header', () => ({})],
    ['Bearer with no key', () => ({ authorization: 'Bearer' })],
    ['Bearer and spaces only', () => ({ authorization: 'Bearer    ' })],
    ['wrong scheme Basic', () => ({ authorization: `Basic ${Buffer.from(`${ctx.key}:`).toString('base64')}` })],
    ['wrong scheme Token', () => ({ authorization: `Token ${ctx.key}` })],
    ['raw key without scheme', () => ({ authorization: ctx.key })],
    ['key with trailing junk', () => ({ authorization: `Bearer ${ctx.key}junk` })],
    ['key with a second token', () => ({ authorization: `Bearer ${ctx.key} extra` })],
    ['key truncated by one char', () => ({ authorization: `Bearer ${ctx.key.slice(0, -1)}` })],
    ['10,000-char key', () => ({ authorization: `Bearer ev_live_${'A'.repeat(10_000)}` })],
    ['SQL-ish key', () => ({ authorization: "Bearer ' OR 1=1 --" })],
  ];
  it.each(AUTH)('auth: %s → 401 authentication_error', async (_what, headers) => {
    for (const sandbox of [true, false]) {
      const res = await bounded(call(single.POST, { key: null, sandbox, headers: headers(), body: { email: 'valid@example.com' } }));
      expectError(res, 401, 'authentication_error');
    }
  });

  it('auth: lowercase "bearer" scheme is accepted (schemes are case-insensitive)', async () => {
    const res = await bounded(call(single.POST, { key: null, headers: { authorization: `bearer ${ctx.key}` }, body: { email: 'valid@example.com' } }));
    expectSane(res);
    expect(res.status).toBe(200);
  });

  it('auth: a revoked key → 401', async () => {
    const { key, info } = await createApiKey(ctx.database, ctx.account.id, 'to-revoke');
    expect((await call(single.POST, { key, body: { email: 'valid@example.com' } })).status).toBe(200);
    expect((await call(keyById.DELETE, { method: 'DELETE', key: ctx.key, params: { id: info.id } })).status).toBe(200);
    expectError(await bounded(call(single.POST, { key, body: { email: 'valid@example.com' } })), 401, 'authentication_error');
    expectError(await bounded(call(keyById.DELETE, { method: 'DELETE', key: ctx.key, params: { id: info.id } })), 404, 'not_found');
  });

  const DELETED: [string, Handler, Record<string, unknown>][] = [
    ['single', single.POST, { body: { email: 'valid@example.com' } }],
    ['bulk', bulk.POST, { body: { emails: ['valid@example.com', 'x@y.com'] } }],
    ['account', account.GET, {}],
    ['create key', keys.POST, { body: { name: 'again' } }],
  ];
  it.each(DELETED)('auth: key of a deleted account, never used before → 401 on %s', async (name, handler, options) => {
    const doomed = await ensureAccount(ctx.database, `doomed-cold-${name.replace(' ', '')}-${dialect}@example.com`);
    const { key } = await createApiKey(ctx.database, doomed.id, 'doomed');
    await ctx.database.prisma.user.delete({ where: { id: doomed.id } });
    expectError(await bounded(call(handler, { key, ...options })), 401, 'authentication_error');
  });
  // Key lookups are cached for 5 s; removing an account (an operator action, no API) forgets them
  // in the process that does it, other processes within the cache's 5 s.
  it.each(DELETED)('auth: key of a deleted account, used just before deletion → 401 on %s', async (name, handler, options) => {
    const doomed = await ensureAccount(ctx.database, `doomed-warm-${name.replace(' ', '')}-${dialect}@example.com`);
    const { key } = await createApiKey(ctx.database, doomed.id, 'doomed');
    expect((await call(single.POST, { key, body: { email: 'valid@example.com' } })).status).toBe(200);
    await ctx.database.prisma.user.delete({ where: { id: doomed.id } });
    forgetKeyLookups();
    const res = await bounded(call(handler, { key, ...options }));
    expectSane(res);
    expectError(res, 401, 'authentication_error');
  });

  // Session cookie: the dashboard's way in. CSRF: writes need a matching Origin.
  async function cookie(sub: string) {
    const jwt = await encode({ token: { sub }, secret: sessionSecret() });
    return `next-auth.session-token=${jwt}`;
  }
  const viaCookie = async (handler: Handler, method: string, headers: Record<string, string>, body?: unknown) =>
    send(
      handler,
      new NextRequest('http://localhost/v1/x', {
        method,
        headers: {
          host: 'localhost',
          cookie: await cookie(ctx.account.id),
          'x-ev-sandbox': 'true',
          ...(body ? { 'content-type': 'application/json' } : {}),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );

  // [case, method, handler, extra headers, expected status, expected error]
  const SESSION: [string, string, Handler, Record<string, string>, number, string | null][] = [
    ['POST without Origin', 'POST', single.POST, {}, 403, 'forbidden'],
    ['POST from http://evil.example', 'POST', single.POST, { origin: 'http://evil.example' }, 403, 'forbidden'],
    ['POST with Origin "null"', 'POST', single.POST, { origin: 'null' }, 403, 'forbidden'],
    ['POST from a look-alike http://localhost.evil.example', 'POST', single.POST, { origin: 'http://localhost.evil.example' }, 403, 'forbidden'],
    ['POST with the matching Origin http://localhost', 'POST', single.POST, { origin: 'http://localhost' }, 200, null],
    ['GET with the cookie and no Origin', 'GET', account.GET, {}, 200, null],
  ];
  it.each(SESSION)('session cookie: %s → %i', async (_what, method, handler, headers, expected, error) => {
    const res = await bounded(viaCookie(handler, method, headers, method === 'POST' ? { email: 'valid@example.com' } : undefined));
    expectSane(res);
    expect(res.status, res.text.slice(0, 300)).toBe(expected);
    if (error) expect(res.json.error).toBe(error);
  });
});
