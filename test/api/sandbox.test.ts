import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as single from '@/app/v1/verify/single/route';
import * as verify from '@/app/v1/verify/route';
import * as bulk from '@/app/v1/verify/bulk/route';
import * as bulkJob from '@/app/v1/verify/bulk/[jobId]/route';
import * as status from '@/app/v1/verify/bulk/status/[jobId]/route';
import * as download from '@/app/v1/verify/bulk/download/[jobId]/route';
import * as history from '@/app/v1/history/route';
import * as webhooks from '@/app/v1/webhooks/route';
import * as webhookTest from '@/app/v1/webhooks/[id]/test/route';
import * as deliveries from '@/app/v1/webhooks/[id]/deliveries/route';
import * as keys from '@/app/v1/keys/route';
import * as keyById from '@/app/v1/keys/[id]/route';
import * as account from '@/app/v1/account/route';
import * as webhookById from '@/app/v1/webhooks/[id]/route';
import * as unknownPath from '@/app/v1/[...path]/route';
import Papa from 'papaparse';
import { ensureAccount } from '@/lib/accounts/users';
import { createApiKey } from '@/lib/accounts/keys';
import { JobWorker } from '@/lib/jobs/worker/worker';
import { sandboxVerifier } from '@/lib/verifier/sandbox';
import { dispatchDueDeliveries } from '@/lib/webhooks/dispatch';
import { DIALECTS } from '../databases';
import { assertWebhookPayload } from './contract';
import { call, setup, until } from './harness';

const PREFIX_TABLE = [
  ['valid', true, true, 'low', 'accepted_email', 95, 'deliverable', 95, false],
  ['invalid', false, false, 'high', 'rejected_email', 95, 'undeliverable', 0, false],
  ['risky', true, false, 'medium', 'low_quality', 60, 'risky', 50, false],
  ['catchall', true, false, 'medium', 'accept_all', 50, 'catch-all', 60, false],
  ['disposable', true, false, 'high', 'disposable_email', 90, 'risky', 20, true],
  ['role', true, true, 'medium', 'role_account', 80, 'role-based', 70, false],
] as const;

describe.each(DIALECTS)('sandbox API on %s', (dialect) => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  let worker: JobWorker;
  let otherKey: string;

  beforeAll(async () => {
    process.env.EV_SANDBOX_TIMEOUT_MS = '50';
    process.env.EV_CHUNK_SIZE = '7';
    process.env.EV_ALLOW_PRIVATE_NETWORKS = 'true';
    ctx = await setup(dialect);
    otherKey = (await createApiKey(ctx.database, (await ensureAccount(ctx.database, `other-${dialect}@example.com`)).id)).key;
    worker = new JobWorker(ctx.database, { concurrency: 4, leaseMs: 5000, pollMs: 20, verifierFor: () => sandboxVerifier });
    worker.start();
  });
  afterAll(async () => {
    await worker.stop();
    await ctx.teardown();
  });

  it.each(PREFIX_TABLE)('single: prefix %s gives the documented verdict', async (prefix, valid, deliverable, risk, reason, confidence) => {
    const res = await call(single.POST, { key: ctx.key, body: { email: `${prefix}.user@Example.org` } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      email: `${prefix}.user@Example.org`,
      valid,
      deliverable,
      risk_level: risk,
      reason,
      confidence,
      cached: false,
      provider: 'example.org',
    });
    expect(typeof res.json.response_time).toBe('number');
    expect(Object.keys(res.json.details).sort()).toEqual(['domain_exists', 'mx_record', 'smtp_valid', 'syntax_valid']);
    expect(res.json.details.syntax_valid).toBe(true);
    for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) expect(res.headers.get(h)).toMatch(/^\d+$/);
  });

  it.each(PREFIX_TABLE)('/v1/verify: prefix %s gives status, score and is_disposable', async (prefix, ...rest) => {
    const [, , , , , status, score, disposable] = rest;
    const res = await call(verify.POST, { key: ctx.key, body: { email: `${prefix.toUpperCase()}42@any.test` } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ status, score, is_disposable: disposable });
  });

  it('judges other addresses by a stable hash: repeatable, consistent, every verdict represented', async () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const email = `person${i}@company${i % 7}.com`;
      const a = await call(verify.POST, { key: ctx.key, body: { email } });
      const b = await call(verify.POST, { key: ctx.key, body: { email } });
      expect(b.json.status).toBe(a.json.status);
      expect(b.json.score).toBe(a.json.score);
      if (a.json.status === 'deliverable') expect(a.json.score).toBeGreaterThanOrEqual(80);
      if (a.json.status === 'undeliverable') expect(a.json.score).toBe(0);
      expect(a.json.deliverable).toBe(a.json.status === 'deliverable' || a.json.status === 'role-based');
      seen.add(a.json.status);
    }
    expect([...seen].sort()).toEqual(['catch-all', 'deliverable', 'risky', 'role-based', 'undeliverable', 'unknown']);
  });

  it('answers a malformed address with 200, valid false and reason invalid_email', async () => {
    const res = await call(single.POST, { key: ctx.key, body: { email: 'valid..dots@@example.com' } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ valid: false, deliverable: false, reason: 'invalid_email', details: { syntax_valid: false } });
  });

  it('error triggers answer exactly as the error table says', async () => {
    const auth = await call(single.POST, { key: ctx.key, body: { email: 'error-auth@x.com' } });
    expect(auth.status).toBe(401);
    expect(auth.json).toEqual({ error: 'authentication_error', message: expect.any(String) });
    const rate = await call(verify.POST, { key: ctx.key, body: { email: 'error-ratelimit@x.com' } });
    expect(rate.status).toBe(429);
    expect(rate.headers.get('retry-after')).toBe('60');
    expect(rate.json).toMatchObject({ error: 'rate_limit', retry_after: 60 });
    const server = await call(single.POST, { key: ctx.key, body: { email: 'error-server@x.com' } });
    expect(server.status).toBe(500);
    expect(server.json).toEqual({ error: 'server_error', message: expect.any(String) });
    const started = Date.now();
    const timeout = await call(single.POST, { key: ctx.key, body: { email: 'error-timeout@x.com' } });
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect(timeout.status).toBe(504);
    expect(timeout.json.error).toBe('timeout');
    expect(rate.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
  });

  it('applies triggers to a bulk request of one address only', async () => {
    const alone = await call(bulk.POST, { key: ctx.key, body: { emails: ['error-server@x.com'] } });
    expect(alone.status).toBe(500);
    const mixed = await call(bulk.POST, { key: ctx.key, body: { emails: ['error-server@x.com', 'valid@x.com'] } });
    expect(mixed.status).toBe(200);
    expect(mixed.json.results).toHaveLength(2);
  });

  it('refuses a missing, unknown or revoked key in both modes', async () => {
    for (const sandbox of [true, false]) {
      const none = await call(single.POST, { key: null, sandbox, body: { email: 'valid@x.com' } });
      expect(none.status).toBe(401);
      expect(none.json.error).toBe('authentication_error');
      const wrong = await call(single.POST, { key: 'ev_live_nope', sandbox, body: { email: 'valid@x.com' } });
      expect(wrong.status).toBe(401);
    }
    const created = await call(keys.POST, { key: ctx.key, body: { name: 'temp' } });
    expect(created.status).toBe(201);
    expect(created.json.key).toMatch(/^ev_live_/);
    expect((await call(single.POST, { key: created.json.key, body: { email: 'valid@x.com' } })).status).toBe(200);
    const listed = await call(keys.GET, { key: ctx.key });
    expect(listed.json.data.some((k: any) => k.id === created.json.id && !('key' in k) && k.prefix.startsWith('ev_live_'))).toBe(true);
    expect((await call(keyById.DELETE, { method: 'DELETE', key: ctx.key, params: { id: created.json.id } })).status).toBe(200);
    expect((await call(single.POST, { key: created.json.key, body: { email: 'valid@x.com' } })).status).toBe(401);
  });

  it('bulk of 10 or fewer answers instantly and still records a job', async () => {
    // someone5@example.com: the sandbox's stable hash answers it `unknown`
    const emails = [
      'valid1@a.com',
      'invalid1@a.com',
      'risky@a.com',
      'catchall@b.com',
      'disposable@c.com',
      'role@d.com',
      'bad address',
      'someone5@example.com',
      'valid2@a.com',
      'invalid2@a.com',
    ];
    const res = await call(bulk.POST, { key: ctx.key, body: { emails } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ success: true, instant: true, status: 'completed', total_emails: 10, valid_emails: 9, invalid_format_emails: 1 });
    expect(res.json.job_id).toMatch(/^job_/);
    expect(res.json.results).toHaveLength(10);
    expect(Object.keys(res.json.results[0])).toEqual(expect.arrayContaining(['email', 'valid', 'deliverable', 'risk_level', 'reason', 'cached']));
    expect(res.json.results[0]).toMatchObject({ email: 'valid1@a.com', deliverable: true });
    expect(res.json.results[1]).toMatchObject({ email: 'invalid1@a.com', deliverable: false, valid: false });
    expect(res.json.summary).toMatchObject({ total: 10, unknown: 1 });
    expect(res.json.summary.valid + res.json.summary.invalid + res.json.summary.unknown).toBe(10);
    for (const n of Object.values(res.json.summary)) expect(Number.isInteger(n)).toBe(true);
    expect(typeof res.json.message).toBe('string');
    const st = await call(status.GET, { key: ctx.key, params: { jobId: res.json.job_id } });
    expect(st.json).toMatchObject({ success: true, status: 'completed', progress: 100 });
    expect(st.json.data.summary).toEqual(res.json.summary); // one count, however it is asked
    expect(st.json.data.results).toHaveLength(10);
    const csv = await call(download.GET, { key: ctx.key, params: { jobId: res.json.job_id } });
    expect(csv.status).toBe(200);
    expect(csv.text.trim().split('\r\n')).toHaveLength(11);
  });

  it('bulk of more than 10 is queued, processed by the worker, polled and downloaded', async () => {
    const emails = Array.from({ length: 25 }, (_, i) => `${['valid', 'invalid', 'risky', 'catchall', 'disposable', 'role', 'someone'][i % 7]}${i}@example.com`);
    emails[24] = 'not-an-address';
    const res = await call(bulk.POST, { key: ctx.key, body: { emails } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ success: true, status: 'queued', total_emails: 25, valid_emails: 24, invalid_format_emails: 1 });
    expect(res.json).not.toHaveProperty('instant');
    expect(res.json).not.toHaveProperty('results');
    expect(res.json).not.toHaveProperty('summary');
    expect(res.json.estimated_time).toMatch(/second|minute|hour/);
    expect(res.json.message).toContain('/v1/verify/bulk/status/');
    const jobId = res.json.job_id;
    const done = await until(
      () => call(status.GET, { key: ctx.key, params: { jobId } }),
      (r) => r.json.status === 'completed',
    );
    expect(done.json).toMatchObject({ success: true, status: 'completed', progress: 100, processed_emails: 25 });
    expect(done.json.data.results).toHaveLength(25);
    expect(done.json.data.summary).toMatchObject({ total: 25, failed: 0 });
    const s = done.json.data.summary;
    expect(s.valid + s.invalid + s.unknown).toBe(25);
    expect(new Date(done.json.data.completed_at).toISOString()).toBe(done.json.data.completed_at);
    expect(done.json.data.results[1]).toMatchObject({ email: 'invalid1@example.com', deliverable: false });
    const paged = await call(status.GET, { key: ctx.key, path: `/v1/verify/bulk/status/${jobId}?limit=5&offset=20`, params: { jobId } });
    expect(paged.json.data.results.map((r: any) => r.email)).toEqual(emails.slice(20));

    const csv = await call(download.GET, { key: ctx.key, params: { jobId } });
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('content-disposition')).toBe(`attachment; filename="${jobId}.csv"`);
    const lines = csv.text.trim().split('\r\n');
    expect(lines[0]).toBe(
      'email,valid,deliverable,risk_level,reason,status,score,provider,disposable,role,free,catch_all,did_you_mean,cached,sub_reason,mailbox_provider',
    );
    expect(lines).toHaveLength(26);
    expect(lines[1]).toMatch(/^valid0@example.com,true,true,low,accepted_email,deliverable,95,example.com,false,false,false,false,,false,,$/);
    const onlyDeliverable = await call(download.GET, { key: ctx.key, path: `/v1/verify/bulk/download/${jobId}?filter=deliverable`, params: { jobId } });
    const rows = onlyDeliverable.text.trim().split('\r\n').slice(1);
    expect(rows.length).toBe(s.deliverable);
    expect(rows.every((r) => r.includes(',deliverable,'))).toBe(true);
  });

  it('keeps uploaded CSV columns first and escapes formula cells', async () => {
    const emails = Array.from({ length: 12 }, (_, i) => `valid${i}@shop.com`);
    const rows = emails.map((e, i) => [i === 0 ? '=HYPERLINK("http://evil")' : `Name ${i}`, e, '-5']);
    const res = await call(bulk.POST, { key: ctx.key, body: { emails, rows, columns: ['name', 'Email', 'balance'], filename: 'list.csv' } });
    const jobId = res.json.job_id;
    await until(
      () => call(status.GET, { key: ctx.key, params: { jobId } }),
      (r) => r.json.status === 'completed',
    );
    const csv = await call(download.GET, { key: ctx.key, params: { jobId } });
    const lines = csv.text.trim().split('\r\n');
    expect(lines[0]).toBe(
      'name,Email,balance,email,valid,deliverable,risk_level,reason,status,score,provider,disposable,role,free,catch_all,did_you_mean,cached,sub_reason,mailbox_provider',
    );
    expect(lines[1]!.startsWith(`"'=HYPERLINK(""http://evil"")",valid0@shop.com,"'-5",valid0@shop.com,true`)).toBe(true);
    expect(lines).toHaveLength(13);
  });

  it('reads the addresses of an upload from email_column', async () => {
    const rows = Array.from({ length: 11 }, (_, i) => [`n${i}`, ` valid${i}@col.com `]);
    const res = await call(bulk.POST, { key: ctx.key, body: { rows, columns: ['name', 'mail'], email_column: 1, filename: 'crm.csv' } });
    expect(res.json).toMatchObject({ status: 'queued', total_emails: 11, valid_emails: 11 });
    const jobId = res.json.job_id;
    const done = await until(
      () => call(status.GET, { key: ctx.key, params: { jobId } }),
      (r) => r.json.status === 'completed',
    );
    expect(done.json.filename).toBe('crm.csv');
    expect(done.json.data.results[0]).toMatchObject({ email: 'valid0@col.com', deliverable: true });
    const csv = await call(download.GET, { key: ctx.key, params: { jobId } });
    expect(csv.text.split('\r\n')[1]).toMatch(/^n0," valid0@col.com ",valid0@col.com,true,true,low,/);
    const outOfRange = await call(bulk.POST, { key: ctx.key, body: { rows, columns: ['name', 'mail'], email_column: 2 } });
    expect(outOfRange.json).toMatchObject({ error: 'invalid_request', param: 'email_column' });
    const neither = await call(bulk.POST, { key: ctx.key, body: { rows, columns: ['name', 'mail'] } });
    expect(neither.json).toMatchObject({ error: 'invalid_request', param: 'emails' });
  });

  it('lists jobs newest first with a cursor, and cancels a queued job', async () => {
    const first = await call(bulk.GET, { key: ctx.key, path: '/v1/verify/bulk?limit=2' });
    expect(first.status).toBe(200);
    expect(first.json.data).toHaveLength(2);
    expect(first.json.next_cursor).toEqual(expect.any(String));
    const second = await call(bulk.GET, { key: ctx.key, path: `/v1/verify/bulk?limit=2&cursor=${first.json.next_cursor}` });
    const ids = [...first.json.data, ...second.json.data].map((j: any) => j.job_id);
    expect(new Set(ids).size).toBe(ids.length);
    const times = [...first.json.data, ...second.json.data].map((j: any) => j.created_at);
    expect([...times].sort().reverse()).toEqual(times);

    await worker.stop();
    const queued = await call(bulk.POST, { key: ctx.key, body: { emails: Array.from({ length: 30 }, (_, i) => `valid${i}@q.com`) } });
    const jobId = queued.json.job_id;
    const running = await call(download.GET, { key: ctx.key, params: { jobId } });
    expect(running.status).toBe(409);
    expect(running.json.error).toBe('job_not_completed');
    const pending = await call(status.GET, { key: ctx.key, params: { jobId } });
    expect(pending.json).toMatchObject({ success: true, status: 'queued', progress: 0, processed_emails: 0, total_emails: 30 });
    expect(pending.json).not.toHaveProperty('data');
    const cancelled = await call(bulkJob.DELETE, { method: 'DELETE', key: ctx.key, params: { jobId } });
    expect(cancelled.json).toMatchObject({ success: true, status: 'cancelled' });
    expect((await call(bulkJob.DELETE, { method: 'DELETE', key: ctx.key, params: { jobId } })).status).toBe(409);
    worker.start();
    await new Promise((r) => setTimeout(r, 200));
    expect((await call(status.GET, { key: ctx.key, params: { jobId } })).json.status).toBe('cancelled');
  });

  it('keeps other accounts out: their job ids are 404', async () => {
    const mine = await call(bulk.POST, { key: ctx.key, body: { emails: ['valid@x.com'] } });
    const jobId = mine.json.job_id;
    for (const handler of [status.GET, download.GET]) {
      const res = await call(handler, { key: otherKey, params: { jobId } });
      expect(res.status).toBe(404);
      expect(res.json.error).toBe('not_found');
    }
    expect((await call(bulkJob.DELETE, { method: 'DELETE', key: otherKey, params: { jobId } })).status).toBe(404);
    expect((await call(status.GET, { key: ctx.key, params: { jobId: 'job_doesnotexist' } })).status).toBe(404);
    const theirs = await call(history.GET, { key: otherKey });
    expect(theirs.json.data).toEqual([]);
  });

  it('lists history newest first, by mode, by email, paged', async () => {
    await call(single.POST, { key: ctx.key, body: { email: 'history-probe@h.com' } });
    const all = await call(history.GET, { key: ctx.key, path: '/v1/history?limit=5' });
    expect(all.json.success).toBe(true);
    expect(all.json.data).toHaveLength(5);
    expect(all.json.data[0]).toMatchObject({ email: 'history-probe@h.com', source: 'single', sandbox: true, job_id: null });
    expect(Object.keys(all.json.data[0]).sort()).toEqual(
      ['created_at', 'deliverable', 'email', 'id', 'job_id', 'reason', 'risk_level', 'sandbox', 'score', 'source', 'status', 'valid'].sort(),
    );
    const next = await call(history.GET, { key: ctx.key, path: `/v1/history?limit=5&cursor=${all.json.next_cursor}` });
    expect(next.json.data[0].id).not.toBe(all.json.data[0].id);
    const byEmail = await call(history.GET, { key: ctx.key, path: '/v1/history?email=valid0@shop.com' });
    expect(byEmail.json.data).toHaveLength(1);
    expect(byEmail.json.data[0]).toMatchObject({ source: 'bulk', job_id: expect.stringMatching(/^job_/) });
    const production = await call(history.GET, { key: ctx.key, sandbox: false, path: '/v1/history' });
    expect(production.json.data).toEqual([]);
  });

  it('answers every bad input with the documented error and loses nothing', async () => {
    const jobsBefore = await ctx.database.prisma.job.count();
    const cases: [Parameters<typeof call>[1], number, string, string?][] = [
      [{ rawBody: '{"email": ' }, 400, 'invalid_request', 'body'],
      [{ rawBody: '[]' }, 400, 'invalid_request'],
      [{ body: { email: 42 } }, 400, 'invalid_request', 'email'],
      [{ body: {} }, 400, 'invalid_request', 'email'],
    ];
    for (const [options, code, error, param] of cases) {
      const res = await call(single.POST, { key: ctx.key, ...options });
      expect(res.status, JSON.stringify(options)).toBe(code);
      expect(res.json.error).toBe(error);
      if (param) expect(res.json.param).toBe(param);
      expect(res.text).not.toMatch(/at .*\.ts|<html/i);
    }
    const bulkCases: [unknown, number, string, string?][] = [
      [{ emails: 'a@b.com' }, 400, 'invalid_request', 'emails'],
      [{ emails: [] }, 400, 'invalid_request', 'emails'],
      [{ emails: ['a@b.com', 7] }, 400, 'invalid_request', 'emails.1'],
      [{ emails: ['a@b.com'], rows: [['x'], ['y']], columns: ['c'] }, 400, 'invalid_request', 'rows'],
    ];
    for (const [body, code, error, param] of bulkCases) {
      const res = await call(bulk.POST, { key: ctx.key, body });
      expect(res.status).toBe(code);
      expect(res.json).toMatchObject({ error, param });
    }
    process.env.EV_MAX_BULK_EMAILS = '40';
    process.env.EV_MAX_BODY_BYTES = '2000';
    try {
      const tooMany = await call(bulk.POST, { key: ctx.key, body: { emails: Array.from({ length: 41 }, (_, i) => `a${i}@b.c`) } });
      expect(tooMany.status).toBe(413);
      expect(tooMany.json).toMatchObject({ error: 'too_many_emails', limit: 40 });
      const big = await call(bulk.POST, { key: ctx.key, body: { emails: [`${'x'.repeat(1000)}@a.com`, `${'y'.repeat(1000)}@a.com`] } });
      expect(big.status).toBe(413);
      expect(big.json.error).toBe('payload_too_large');
      // Without Content-Length the limit applies while streaming.
      const stream = new ReadableStream({
        start(c) {
          c.enqueue(new TextEncoder().encode(`{"emails":["${'z'.repeat(5000)}"]}`));
          c.close();
        },
      });
      const request = new Request('http://localhost/v1/verify/bulk', {
        method: 'POST',
        body: stream,
        duplex: 'half',
        headers: { authorization: `Bearer ${ctx.key}`, 'x-ev-sandbox': 'true' },
      } as RequestInit);
      const streamed = await bulk.POST(request, { params: Promise.resolve({}) });
      expect(streamed.status).toBe(413);
    } finally {
      delete process.env.EV_MAX_BULK_EMAILS;
      delete process.env.EV_MAX_BODY_BYTES;
    }
    const badFilter = await call(download.GET, { key: ctx.key, path: '/v1/verify/bulk/download/x?filter=bogus', params: { jobId: 'x' } });
    expect(badFilter.status).toBe(400);
    expect(badFilter.json).toMatchObject({ error: 'invalid_request', param: 'filter' });
    const badLimit = await call(history.GET, { key: ctx.key, path: '/v1/history?limit=1000' });
    expect(badLimit.status).toBe(400);
    const badCursor = await call(bulk.GET, { key: ctx.key, path: '/v1/verify/bulk?cursor=garbage' });
    expect(badCursor.status).toBe(400);
    // No refused request left a job (or half of one) behind.
    expect(await ctx.database.prisma.job.count()).toBe(jobsBefore);
    expect(
      await ctx.database.prisma.jobItem.count({
        where: { jobId: { notIn: (await ctx.database.prisma.job.findMany({ select: { id: true } })).map((j) => j.id) } },
      }),
    ).toBe(0);
  });

  it('delivers signed webhooks: bulk.completed with sandbox true, test events, retries and 410', async () => {
    const received: { headers: Record<string, string>; body: string }[] = [];
    let failuresLeft = 1;
    let answer = 200;
    const server: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received.push({ headers: req.headers as Record<string, string>, body });
        assertWebhookPayload(JSON.parse(body));
        if (failuresLeft-- > 0) res.writeHead(500).end('try later');
        else res.writeHead(answer).end('ok');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    try {
      process.env.EV_ALLOW_PRIVATE_NETWORKS = 'false';
      const refused = await call(webhooks.POST, { key: ctx.key, body: { url } });
      expect(refused.status).toBe(400);
      expect(refused.json.param).toBe('url');
      process.env.EV_ALLOW_PRIVATE_NETWORKS = 'true';
      expect((await call(webhooks.POST, { key: ctx.key, body: { url: 'ftp://x.com/' } })).status).toBe(400);

      const created = await call(webhooks.POST, { key: ctx.key, body: { url, description: 'test' } });
      expect(created.status).toBe(201);
      expect(created.json).toMatchObject({ url, events: ['bulk.completed', 'bulk.failed'] });
      expect(created.json.secret).toMatch(/^whsec_/);
      expect((await call(webhooks.GET, { key: ctx.key })).json.data[0]).not.toHaveProperty('secret');
      const hook = new Webhook(created.json.secret);

      const job = await call(bulk.POST, { key: ctx.key, body: { emails: ['valid@a.com', 'invalid@b.com'] } });
      await until(
        () => dispatchDueDeliveries(ctx.database).then(() => received.length),
        (n) => n >= 1,
      );
      expect(received).toHaveLength(1); // first attempt answered 500
      const list1 = await call(deliveries.GET, { key: ctx.key, params: { id: created.json.id } });
      expect(list1.json.data[0]).toMatchObject({ event_type: 'bulk.completed', state: 'pending', attempts: 1, last_status: 500 });
      // The retry is due 5 s (±10 %) later.
      await dispatchDueDeliveries(ctx.database, Date.now() + 6000);
      expect(received).toHaveLength(2);
      const event = hook.verify(received[1]!.body, received[1]!.headers) as any;
      expect(event).toMatchObject({ type: 'bulk.completed', sandbox: true, data: { job_id: job.json.job_id, status: 'completed', total_emails: 2 } });
      expect(event.data.summary).toMatchObject({ total: 2 });
      expect(event.data.download_url).toContain(`/v1/verify/bulk/download/${job.json.job_id}`);
      expect(received[0]!.headers['webhook-id']).toBe(received[1]!.headers['webhook-id']);
      expect(() => hook.verify(received[1]!.body.replace('completed', 'failed'), received[1]!.headers)).toThrow();
      const list2 = await call(deliveries.GET, { key: ctx.key, params: { id: created.json.id } });
      expect(list2.json.data[0]).toMatchObject({ state: 'succeeded', attempts: 2, last_status: 200 });
      expect(list2.json.data[0].attempt_log.map((a: any) => a.status)).toEqual([500, 200]);

      const test = await call(webhookTest.POST, { key: ctx.key, params: { id: created.json.id } });
      expect(test.json).toMatchObject({ success: true, state: 'succeeded', last_status: 200 });
      expect(hook.verify(received[2]!.body, received[2]!.headers) as any).toMatchObject({ type: 'webhook.test', sandbox: true });
      expect((await call(webhookTest.POST, { key: otherKey, params: { id: created.json.id } })).status).toBe(404);

      answer = 410;
      const gone = await call(webhookTest.POST, { key: ctx.key, params: { id: created.json.id } });
      expect(gone.json.last_status).toBe(410);
      expect((await call(webhooks.GET, { key: ctx.key })).json.data[0].disabled).toBe(true);
    } finally {
      server.close();
    }
  });

  it('applies every trigger to a bulk request of that address alone', async () => {
    const auth = await call(bulk.POST, { key: ctx.key, body: { emails: ['error-auth@x.com'] } });
    expect([auth.status, auth.json.error]).toEqual([401, 'authentication_error']);
    const rate = await call(bulk.POST, { key: ctx.key, body: { emails: ['error-ratelimit@x.com'] } });
    expect([rate.status, rate.json.error, rate.json.retry_after, rate.headers.get('retry-after')]).toEqual([429, 'rate_limit', 60, '60']);
    const timeout = await call(bulk.POST, { key: ctx.key, body: { emails: ['error-timeout@x.com'] } });
    expect([timeout.status, timeout.json.error]).toEqual([504, 'timeout']);
  });

  it('sends the X-RateLimit headers on every /v1 answer, errors and unknown paths included', async () => {
    const answers = [
      await call(single.POST, { key: null, body: { email: 'valid@x.com' } }),
      await call(single.POST, { key: null, sandbox: false, body: { email: 'valid@x.com' } }),
      await call(single.POST, { key: ctx.key, rawBody: '{"email":' }),
      await call(status.GET, { key: ctx.key, params: { jobId: 'job_doesnotexist0' } }),
      await call(unknownPath.GET, { key: ctx.key, path: '/v1/nothing/here' }),
      await call(unknownPath.POST, { key: ctx.key, sandbox: false, path: '/v1/verify/everything', body: {} }),
    ];
    expect(answers.map((a) => a.status)).toEqual([401, 401, 400, 404, 404, 404]);
    const now = Date.now() / 1000;
    for (const answer of answers) {
      expect(answer.headers.get('content-type')).toContain('application/json');
      expect(Number(answer.headers.get('x-ratelimit-limit'))).toBeGreaterThan(0);
      expect(answer.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
      const reset = Number(answer.headers.get('x-ratelimit-reset'));
      expect(reset).toBeGreaterThanOrEqual(Math.floor(now));
      expect(reset).toBeLessThanOrEqual(now + 61);
    }
    expect(answers[4]!.json).toEqual({ error: 'not_found', message: expect.any(String) });
    // an unknown path still needs a key
    expect((await call(unknownPath.GET, { key: null, path: '/v1/nothing' })).status).toBe(401);
  });

  it('downloads each filter as its own part of the results, always named <job_id>.csv', async () => {
    const emails = [...PREFIX_TABLE.flatMap(([prefix]) => [`${prefix}1@f.com`, `${prefix}2@f.com`]), 'someone5@example.com', 'not an address'];
    const res = await call(bulk.POST, { key: ctx.key, body: { emails } });
    const jobId = res.json.job_id;
    const done = await until(
      () => call(status.GET, { key: ctx.key, params: { jobId } }),
      (r) => r.json.status === 'completed',
    );
    const { summary } = done.json.data;
    const seen: string[] = [];
    for (const filter of ['deliverable', 'undeliverable', 'risky', 'unknown'] as const) {
      const csv = await call(download.GET, { key: ctx.key, path: `/v1/verify/bulk/download/${jobId}?filter=${filter}`, params: { jobId } });
      expect(csv.headers.get('content-disposition')).toBe(`attachment; filename="${jobId}.csv"`);
      const rows = Papa.parse<Record<string, string>>(csv.text.trim(), { header: true }).data;
      expect(rows).toHaveLength(summary[filter]);
      seen.push(...rows.map((r) => r.email!));
      const statuses = new Set(rows.map((r) => r.status));
      if (filter === 'risky') expect(statuses).toEqual(new Set(['risky', 'catch-all', 'role-based']));
      else expect(statuses).toEqual(new Set([filter]));
    }
    expect(seen.sort()).toEqual([...emails].sort()); // the four filters split the job, nothing twice
  });

  it('escapes every formula start in downloaded cells: = + - @ tab CR', async () => {
    const cells = ['=1+1', '+1', '-2', '@SUM(A1)', '\tlead', '\rlead', 'plain'];
    const emails = Array.from({ length: 11 }, (_, i) => `valid${i}@formula.com`);
    const rows = emails.map((e) => [...cells, e]);
    const res = await call(bulk.POST, { key: ctx.key, body: { emails, rows, columns: [...cells.map((_, i) => `c${i}`), 'email'] } });
    const jobId = res.json.job_id;
    await until(
      () => call(status.GET, { key: ctx.key, params: { jobId } }),
      (r) => r.json.status === 'completed',
    );
    const csv = await call(download.GET, { key: ctx.key, params: { jobId } });
    const [, first] = Papa.parse<string[]>(csv.text.trim()).data;
    expect(first!.slice(0, cells.length)).toEqual([...cells.slice(0, 6).map((c) => `'${c}`), 'plain']);
  });

  it('removes a webhook, and only its owner can', async () => {
    const created = await call(webhooks.POST, { key: ctx.key, body: { url: 'http://127.0.0.1:49999/gone' } });
    const id = created.json.id;
    expect((await call(webhookById.DELETE, { method: 'DELETE', key: otherKey, params: { id } })).status).toBe(404);
    const removed = await call(webhookById.DELETE, { method: 'DELETE', key: ctx.key, params: { id } });
    expect(removed.status).toBe(200);
    expect(removed.json).toMatchObject({ success: true, id, deleted: true });
    expect((await call(webhooks.GET, { key: ctx.key })).json.data.map((w: { id: string }) => w.id)).not.toContain(id);
    expect((await call(webhookById.DELETE, { method: 'DELETE', key: ctx.key, params: { id } })).status).toBe(404);
  });

  it('pages history 50 at a time by default and lets production ask for sandbox records', async () => {
    await call(bulk.POST, { key: ctx.key, body: { emails: Array.from({ length: 60 }, (_, i) => `valid${i}@many.com`) } });
    await until(
      () => call(history.GET, { key: ctx.key, path: '/v1/history?email=valid59@many.com' }),
      (r) => r.json.data.length === 1,
    );
    const page = await call(history.GET, { key: ctx.key, path: '/v1/history' });
    expect(page.json.data).toHaveLength(50);
    expect(page.json.next_cursor).toEqual(expect.any(String));
    const fromProduction = await call(history.GET, { key: ctx.key, sandbox: false, path: '/v1/history?sandbox=true&limit=3' });
    expect(fromProduction.json.data).toHaveLength(3);
    expect(fromProduction.json.data.every((r: { sandbox: boolean }) => r.sandbox)).toBe(true);
    const zero = await call(history.GET, { key: ctx.key, path: '/v1/history?limit=0' });
    expect(zero.json).toMatchObject({ error: 'invalid_request', param: 'limit' });
  });

  it('shows the account with its free verifications and credits', async () => {
    const res = await call(account.GET, { key: ctx.key });
    expect(res.json).toMatchObject({ email: ctx.account.email, plan: 'free', free_remaining_today: 100, credits: 0 });
  });
});
