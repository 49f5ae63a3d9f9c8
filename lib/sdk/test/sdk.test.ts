import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobWorker } from '@/lib/jobs/worker/worker';
import { sandboxVerifier } from '@/lib/verifier/sandbox';
import { setup } from '@/test/api/harness';
import { startApiServer } from '@/test/api/server';
import {
  AuthenticationError,
  ConflictError,
  ConnectionError,
  EmailVerifier,
  InsufficientCreditsError,
  NotFoundError,
  RateLimitError,
  ServerError,
  TimeoutError,
  ValidationError,
  WebhookVerificationError,
  verifyWebhook,
  type EmailVerifierOptions,
  type RetryInfo,
} from '../src/index';

interface Sent {
  method: string;
  url: string;
  idempotencyKey: string | null;
  sandbox: string | null;
}

describe('the SDK against the real API over HTTP', () => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  let api: Awaited<ReturnType<typeof startApiServer>>;
  let worker: JobWorker;

  beforeAll(async () => {
    ctx = await setup('sqlite', {
      EV_SANDBOX_TIMEOUT_MS: '50',
      EV_ALLOW_PRIVATE_NETWORKS: 'true',
      EV_CHUNK_SIZE: '5',
      // production accounting (quota, credits) with the sandbox engine: cheap, no SMTP
      EV_PRODUCTION_ENGINE: 'sandbox',
      EV_FREE_DAILY: '3',
    });
    api = await startApiServer();
    worker = new JobWorker(ctx.database, { concurrency: 4, leaseMs: 5000, pollMs: 20, verifierFor: () => sandboxVerifier });
  });
  afterAll(async () => {
    await worker.stop();
    await api.close();
    await ctx.teardown();
  });

  /** A client whose every request and retry is recorded. */
  function client(options: Partial<EmailVerifierOptions> = {}) {
    const sent: Sent[] = [];
    const retries: RetryInfo[] = [];
    const inner = options.fetch ?? fetch;
    const sdk = new EmailVerifier({
      apiKey: ctx.key,
      baseUrl: api.url,
      sandbox: true,
      retryDelayMs: 5,
      onRetry: (retry) => retries.push(retry),
      ...options,
      fetch: async (input, init) => {
        const headers = new Headers(init?.headers);
        sent.push({ method: init?.method ?? 'GET', url: String(input), idempotencyKey: headers.get('idempotency-key'), sandbox: headers.get('x-ev-sandbox') });
        return inner(input, init);
      },
    });
    return { sdk, sent, retries };
  }

  it('verify() and verifySingle() answer the documented sandbox verdicts', async () => {
    const { sdk, sent } = client();
    const valid = await sdk.verify('valid@example.com');
    expect(valid).toMatchObject({ email: 'valid@example.com', status: 'deliverable', score: 95, is_disposable: false, sandbox: true });
    const disposable = await sdk.verify('disposable.x@example.com');
    expect(disposable).toMatchObject({ status: 'risky', score: 20, is_disposable: true, disposable: true });
    const single = await sdk.verifySingle('invalid@example.com');
    expect(single).toMatchObject({ valid: false, deliverable: false, status: 'undeliverable', reason: 'rejected_email' });
    expect(sent.every((s) => s.sandbox === 'true' && s.idempotencyKey)).toBe(true);
    expect(new Set(sent.map((s) => s.idempotencyKey)).size).toBe(3);
  });

  it('error-auth raises AuthenticationError at once, with the request id', async () => {
    const { sdk, sent, retries } = client();
    const error = await sdk.verify('error-auth@example.com').catch((e) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ code: 'authentication_error', status: 401 });
    expect(error.requestId).toMatch(/^req_/);
    expect(sent).toHaveLength(1);
    expect(retries).toHaveLength(0);
    const wrongKey = new EmailVerifier({ apiKey: 'ev_live_nope', baseUrl: api.url, sandbox: true });
    await expect(wrongKey.verify('valid@example.com')).rejects.toBeInstanceOf(AuthenticationError);
  });

  it('error-server raises ServerError after the retries, every attempt under one Idempotency-Key', async () => {
    const { sdk, sent, retries } = client({ maxRetries: 3 });
    const error = await sdk.verifySingle('error-server@example.com').catch((e) => e);
    expect(error).toBeInstanceOf(ServerError);
    expect(error).toMatchObject({ code: 'server_error', status: 500 });
    expect(sent).toHaveLength(4);
    expect(retries.map((r) => r.attempt)).toEqual([1, 2, 3]);
    expect(new Set(sent.map((s) => s.idempotencyKey)).size).toBe(1);
    // exponential back-off with jitter: each wait within [d/2, d] of 5, 10, 20 ms
    retries.forEach((r, i) => {
      expect(r.delayMs).toBeGreaterThanOrEqual((5 * 2 ** i) / 2);
      expect(r.delayMs).toBeLessThanOrEqual(5 * 2 ** i);
    });
  });

  it('error-timeout raises TimeoutError (504) after the retries; a client time-out is a TimeoutError too', async () => {
    const { sdk, sent } = client({ maxRetries: 1 });
    const error = await sdk.verify('error-timeout@example.com').catch((e) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ code: 'timeout', status: 504 });
    expect(sent).toHaveLength(2);

    const impatient = client({ maxRetries: 2 });
    const started = Date.now();
    const clientSide = await impatient.sdk.verify('error-timeout@example.com', { timeoutMs: 10 }).catch((e) => e);
    expect(clientSide).toBeInstanceOf(TimeoutError);
    expect(clientSide).toMatchObject({ code: 'timeout', status: 0, requestId: null });
    expect(impatient.sent).toHaveLength(3);
    expect(Date.now() - started).toBeLessThan(10_000); // three 10 ms time-outs and short back-offs (status 0 says the client timed out)
  });

  it('error-ratelimit raises RateLimitError with retryAfter; a Retry-After longer than maxRetryDelayMs is not waited for', async () => {
    const { sdk, sent, retries } = client({ maxRetryDelayMs: 10_000 });
    const error = await sdk.verify('error-ratelimit@example.com').catch((e) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ code: 'rate_limit', status: 429, retryAfter: 60 });
    expect(sent).toHaveLength(1);
    expect(retries).toHaveLength(0);
  });

  it('waits Retry-After before retrying a 429', async () => {
    // the sandbox trigger says 60 s; this server says 1 s, so the test does not wait minutes
    const shorter: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (response.status !== 429) return response;
      const headers = new Headers(response.headers);
      headers.set('retry-after', '1');
      return new Response(await response.text(), { status: 429, headers });
    };
    const { sdk, sent, retries } = client({ fetch: shorter, maxRetries: 2 });
    const started = Date.now();
    const error = await sdk.verify('error-ratelimit@example.com').catch((e) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.retryAfter).toBe(1);
    expect(sent).toHaveLength(3);
    expect(retries.map((r) => r.delayMs)).toEqual([1000, 1000]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
  });

  it('a retry after a lost answer is replayed, not run again: one verification, one charge (production mode)', async () => {
    let lose = 1;
    const lossy: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (init?.method === 'POST' && lose-- > 0) {
        await response.text();
        throw new TypeError('fetch failed: connection reset');
      }
      return response;
    };
    const { sdk, sent, retries } = client({ fetch: lossy, sandbox: false });
    const before = await sdk.account();
    const email = 'valid.once@example.com';
    const result = await sdk.verify(email);
    expect(result).toMatchObject({ email, status: 'deliverable', sandbox: false });
    expect(retries).toHaveLength(1);
    expect(retries[0]!.error).toBeInstanceOf(ConnectionError);
    const posts = sent.filter((s) => s.method === 'POST');
    expect(posts).toHaveLength(2);
    expect(posts[0]!.idempotencyKey).toBe(posts[1]!.idempotencyKey);
    expect((await sdk.account()).used_today).toBe(before.used_today + 1);
    const records = [];
    for await (const record of sdk.history.list({ email })) records.push(record);
    expect(records).toHaveLength(1);
  });

  it('raises InsufficientCreditsError when the production quota is used up', async () => {
    const { sdk } = client({ sandbox: false });
    const account = await sdk.account();
    for (let i = 0; i < account.free_remaining_today; i++) await sdk.verify(`valid.${i}@example.com`);
    const error = await sdk.verify('valid.more@example.com').catch((e) => e);
    expect(error).toBeInstanceOf(InsufficientCreditsError);
    expect(error).toMatchObject({ code: 'insufficient_credits', status: 402, required: 1 });
  });

  it('raises ConnectionError after the retries when nothing listens', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const { sdk, sent } = client({ baseUrl: `http://127.0.0.1:${port}`, maxRetries: 2 });
    const error = await sdk.verify('valid@example.com').catch((e) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ code: 'connection_error', status: 0 });
    expect(sent).toHaveLength(3);
  });

  it('raises ValidationError with the param, NotFoundError, and ConflictError', async () => {
    const { sdk } = client();
    const invalid = await sdk.bulk.submit([]).catch((e) => e);
    expect(invalid).toBeInstanceOf(ValidationError);
    expect(invalid).toMatchObject({ code: 'invalid_request', status: 400, param: 'emails' });
    await expect(sdk.bulk.status('job_nope')).rejects.toBeInstanceOf(NotFoundError);
    const instant = await sdk.bulk.submit(['valid@a.com']);
    const conflict = await sdk.bulk.cancel(instant.job_id).catch((e) => e);
    expect(conflict).toBeInstanceOf(ConflictError);
    expect(conflict.code).toBe('conflict');
  });

  it('bulk: cancel a queued job, then submit, wait with progress, download as a stream, list page after page', async () => {
    const { sdk } = client();
    const toCancel = await sdk.bulk.submit(Array.from({ length: 12 }, (_, i) => `user${i}@cancel.test`));
    expect(toCancel).toMatchObject({ status: 'queued', total_emails: 12 });
    expect(await sdk.bulk.cancel(toCancel.job_id)).toEqual({ success: true, job_id: toCancel.job_id, status: 'cancelled' });
    await expect(sdk.bulk.download(toCancel.job_id)).rejects.toBeInstanceOf(ConflictError);

    const instant = await sdk.bulk.submit(['valid@a.com', 'invalid@b.com']);
    expect(instant).toMatchObject({ instant: true, status: 'completed', summary: { total: 2, deliverable: 1, undeliverable: 1 } });

    const emails = Array.from({ length: 40 }, (_, i) => (i % 2 ? `valid${i}@bulk.test` : `invalid${i}@bulk.test`));
    const queued = await sdk.bulk.submit({ emails, filename: 'list.csv' });
    expect(queued.status).toBe('queued');
    worker.start();
    const seen: number[] = [];
    const done = await sdk.bulk.wait(queued.job_id, { intervalMs: 20, onProgress: (s) => seen.push(s.progress) });
    expect(done.status).toBe('completed');
    expect(done.data!.summary).toMatchObject({ total: 40, deliverable: 20, undeliverable: 20 });
    expect(seen.at(-1)).toBe(100);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));

    const csv = await new Response(await sdk.bulk.download(queued.job_id)).text();
    const lines = csv.trim().split(/\r?\n/);
    expect(lines).toHaveLength(41);
    expect(lines[0]).toMatch(/^email,valid,deliverable/);
    const deliverable = await new Response(await sdk.bulk.download(queued.job_id, { filter: 'deliverable' })).text();
    expect(deliverable.trim().split(/\r?\n/)).toHaveLength(21);

    const jobs = [];
    for await (const job of sdk.bulk.list({ pageSize: 2 })) jobs.push(job);
    expect(jobs.map((j) => j.job_id)).toEqual(expect.arrayContaining([toCancel.job_id, instant.job_id, queued.job_id]));
    expect(new Set(jobs.map((j) => j.job_id)).size).toBe(jobs.length);
    expect(jobs.find((j) => j.job_id === toCancel.job_id)!.status).toBe('cancelled');

    const aborted = new AbortController();
    aborted.abort(new Error('stop waiting'));
    await expect(sdk.bulk.wait(toCancel.job_id, { signal: aborted.signal })).rejects.toThrow('stop waiting');
  });

  it("history.list() walks every page in the client's mode", async () => {
    const { sdk } = client();
    const records = [];
    for await (const record of sdk.history.list({ pageSize: 3 })) records.push(record);
    expect(records.length).toBeGreaterThan(40);
    expect(new Set(records.map((r) => r.id)).size).toBe(records.length);
    expect(records.every((r) => r.sandbox)).toBe(true);
  });

  it("history.page() and bulk.page() answer one page and its cursor, as the dashboard's tables read them", async () => {
    const { sdk, sent } = client();
    const first = await sdk.history.page({ limit: 2, sandbox: true });
    expect(first.data).toHaveLength(2);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await sdk.history.page({ limit: 2, sandbox: true, cursor: first.next_cursor! });
    expect(second.data.map((r) => r.id)).not.toContain(first.data[0]!.id);
    const jobs = await sdk.bulk.page({ limit: 1 });
    expect(jobs).toMatchObject({ success: true, data: [expect.objectContaining({ job_id: expect.any(String), sandbox: true })] });
    expect(sent.map((s) => new URL(s.url).search)).toEqual([
      '?limit=2&sandbox=true',
      `?limit=2&cursor=${encodeURIComponent(first.next_cursor!)}&sandbox=true`,
      '?limit=1',
    ]);
  });

  it('egress() reads the egress report; changePassword() and signOutEverywhere() refuse an API key (dashboard sessions only)', async () => {
    const { sdk } = client();
    const report = await sdk.egress();
    expect(report.success).toBe(true);
    expect(['pass', 'warn', 'fail']).toContain(report.data.status);
    expect(report.data.checks.map((c) => c.name)).toContain('port25');
    const refused = await sdk.changePassword({ current_password: 'a', new_password: 'b'.repeat(12) }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AuthenticationError);
    expect(refused).toMatchObject({ status: 403 });
  });

  it('session: true sends no key and the cookie of the same origin, in the mode asked for; without a session the API answers 401', async () => {
    const inits: RequestInit[] = [];
    const { sdk, sent } = client({
      apiKey: undefined,
      session: true,
      maxRetries: 0,
      fetch: (input, init) => {
        inits.push(init!);
        return fetch(input, init);
      },
    });
    const refused = await sdk.account().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AuthenticationError);
    expect(refused).toMatchObject({ status: 401, code: 'authentication_error' });
    expect(inits[0]!.credentials).toBe('same-origin');
    expect(new Headers(inits[0]!.headers).get('authorization')).toBeNull();
    await expect(sdk.verifySingle('valid@example.com')).rejects.toBeInstanceOf(AuthenticationError);
    // a call never retried sends no Idempotency-Key (the dashboard's writes, as before the SDK)
    expect(sent).toEqual([
      expect.objectContaining({ url: `${api.url}/v1/account`, sandbox: 'true' }),
      expect.objectContaining({ method: 'POST', url: `${api.url}/v1/verify/single`, idempotencyKey: null }),
    ]);
    expect(() => new EmailVerifier({})).toThrow('apiKey is required');
  });

  it('webhooks: create, list, test, deliveries, delete; verifyWebhook checks what the server signed', async () => {
    const received: { headers: Record<string, string>; body: string }[] = [];
    const receiver: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received.push({ headers: req.headers as Record<string, string>, body });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    try {
      const { sdk } = client();
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const hook = await sdk.webhooks.create({ url, events: ['bulk.completed'], description: 'sdk' });
      expect(hook).toMatchObject({ url, events: ['bulk.completed'], disabled: false });
      expect(hook.secret).toMatch(/^whsec_/);
      expect((await sdk.webhooks.list()).map((h) => h.id)).toContain(hook.id);
      const sent = await sdk.webhooks.test(hook.id);
      expect(sent).toMatchObject({ success: true, state: 'succeeded', last_status: 200 });
      expect(received).toHaveLength(1);

      const event = await verifyWebhook(received[0]!.body, received[0]!.headers, hook.secret);
      expect(event).toMatchObject({ id: sent.event_id, type: 'webhook.test', sandbox: true });
      await expect(verifyWebhook(received[0]!.body.replace('test', 'tost'), received[0]!.headers, hook.secret)).rejects.toBeInstanceOf(
        WebhookVerificationError,
      );
      await expect(verifyWebhook(received[0]!.body, received[0]!.headers, `whsec_${btoa('another secret')}`)).rejects.toBeInstanceOf(WebhookVerificationError);
      // as a Headers object, and as raw bytes
      const bytes = new TextEncoder().encode(received[0]!.body);
      expect(await verifyWebhook(bytes, new Headers(received[0]!.headers), hook.secret)).toMatchObject({ type: 'webhook.test' });

      const replayed = await sdk.webhooks.replay(hook.id, sent.delivery_id);
      expect(replayed).toMatchObject({ state: 'succeeded' });
      expect(received[1]!.headers['webhook-id']).toBe(received[0]!.headers['webhook-id']);
      const deliveries = await sdk.webhooks.deliveries(hook.id);
      expect(deliveries).toHaveLength(2);
      expect(deliveries[0]!.attempt_log[0]).toMatchObject({ attempt: 1, status: 200 });

      expect(await sdk.webhooks.delete(hook.id)).toMatchObject({ id: hook.id, deleted: true });
      await expect(sdk.webhooks.delete(hook.id)).rejects.toBeInstanceOf(NotFoundError);
    } finally {
      await new Promise<void>((r) => receiver.close(() => r()));
    }
  });
});

describe('verifyWebhook against the standardwebhooks package', () => {
  const secret = `whsec_${Buffer.from('a secret of some length for hmac').toString('base64')}`;
  const signer = new Webhook(secret);
  const body = JSON.stringify({ id: 'evt_1', type: 'webhook.test', created_at: new Date().toISOString(), sandbox: true, data: { message: 'hi' } });
  const signed = (at: Date, id = 'evt_1') => ({
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signer.sign(id, at, body),
  });

  it('accepts what the package signs, among several signatures, and what the package itself accepts', async () => {
    const headers = signed(new Date());
    expect(signer.verify(body, headers)).toMatchObject({ id: 'evt_1' });
    expect(await verifyWebhook(body, headers, secret)).toMatchObject({ id: 'evt_1', data: { message: 'hi' } });
    const rotated = { ...headers, 'webhook-signature': `v1,${btoa('not it')} ${headers['webhook-signature']}` };
    expect(await verifyWebhook(body, rotated, secret)).toMatchObject({ id: 'evt_1' });
  });

  it('refuses what the package refuses: another id, an old or future timestamp, missing headers', async () => {
    const headers = signed(new Date());
    const otherId = { ...headers, 'webhook-id': 'evt_2' };
    expect(() => signer.verify(body, otherId)).toThrow();
    await expect(verifyWebhook(body, otherId, secret)).rejects.toThrow('No matching signature');
    const old = signed(new Date(Date.now() - 10 * 60_000));
    expect(() => signer.verify(body, old)).toThrow();
    await expect(verifyWebhook(body, old, secret)).rejects.toThrow('tolerance');
    const future = signed(new Date(Date.now() + 10 * 60_000));
    await expect(verifyWebhook(body, future, secret)).rejects.toThrow('tolerance');
    await expect(verifyWebhook(body, { 'webhook-id': 'evt_1' }, secret)).rejects.toBeInstanceOf(WebhookVerificationError);
  });
});
