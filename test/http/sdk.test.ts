import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthenticationError, EmailVerifier, RateLimitError, ServerError, TimeoutError, type RetryInfo } from '@/lib/sdk/src/index';
import { startServer, type Served } from './server';

// The SDK against the built server (`next start`, its embedded worker, its real limits) in sandbox
// mode: what a developer's first hour with it looks like.
let server: Served;

beforeAll(async () => {
  server = await startServer({ EV_SANDBOX_TIMEOUT_MS: '200' }, 1);
});

afterAll(async () => {
  await server?.stop();
});

function client(retries: RetryInfo[] = []) {
  return new EmailVerifier({
    apiKey: server.keys[0]!,
    baseUrl: server.url,
    sandbox: true,
    retryDelayMs: 5,
    maxRetries: 2,
    maxRetryDelayMs: 10,
    onRetry: (r) => retries.push(r),
  });
}

describe('the SDK against next start, in sandbox mode', () => {
  it('verifies an address, runs a list as a job and downloads it', async () => {
    const sdk = client();
    expect(await sdk.verify('valid@example.com')).toMatchObject({ email: 'valid@example.com', status: 'deliverable', disposable: false, sandbox: true });
    const emails = Array.from({ length: 25 }, (_, i) => (i % 5 === 0 ? `disposable${i}@example.com` : `valid${i}@example.com`));
    const submitted = await sdk.bulk.submit(emails);
    expect(submitted.status).toBe('queued');
    const progress: number[] = [];
    const done = await sdk.bulk.wait(submitted.job_id, { intervalMs: 100, onProgress: (status) => progress.push(status.progress) });
    expect(done.status).toBe('completed');
    expect(progress.at(-1)).toBe(100);
    expect(done.data!.summary.total).toBe(25);
    const csv = await new Response(await sdk.bulk.download(submitted.job_id)).text();
    expect(csv.trim().split('\r\n')).toHaveLength(26);
  });

  it('raises each sandbox trigger as its typed error after the documented retries', async () => {
    const cases: [string, new (...args: never[]) => Error, number][] = [
      ['error-auth@example.com', AuthenticationError, 0],
      ['error-ratelimit@example.com', RateLimitError, 0],
      ['error-server@example.com', ServerError, 2],
      ['error-timeout@example.com', TimeoutError, 2],
    ];
    for (const [email, type, retried] of cases) {
      const retries: RetryInfo[] = [];
      const error = await client(retries)
        .verify(email)
        .catch((e: unknown) => e);
      expect(error, email).toBeInstanceOf(type);
      expect((error as { requestId?: string }).requestId, email).toMatch(/^req_/);
      // a 429 whose Retry-After (60 s) is past maxRetryDelayMs is raised at once
      expect(retries, email).toHaveLength(retried);
    }
  });
});
