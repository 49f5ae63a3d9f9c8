import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobWorker } from '@/lib/jobs/worker/worker';
import { sandboxVerifier } from '@/lib/verifier/sandbox';
import { setup } from '@/test/api/harness';
import { startApiServer } from '@/test/api/server';

const run = promisify(execFile);
const sdkDir = join(import.meta.dirname, '..');

/**
 * The SDK as a user gets it: `npm pack` (which builds it), installed from the tarball into an empty
 * project with no registry access, then used by plain Node against the real API over HTTP.
 */
describe('the packed SDK', () => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  let api: Awaited<ReturnType<typeof startApiServer>>;
  let worker: JobWorker;
  const project = mkdtempSync(join(tmpdir(), 'ev-sdk-user-'));
  const packs = mkdtempSync(join(tmpdir(), 'ev-sdk-pack-'));

  beforeAll(async () => {
    ctx = await setup('sqlite', { EV_SANDBOX_TIMEOUT_MS: '50' });
    api = await startApiServer();
    worker = new JobWorker(ctx.database, { concurrency: 4, leaseMs: 5000, pollMs: 20, verifierFor: () => sandboxVerifier });
    worker.start();
    await run('npm', ['pack', '--pack-destination', packs], { cwd: sdkDir, timeout: 120_000 });
    const tarball = readdirSync(packs).find((name) => name.endsWith('.tgz'))!;
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'user-project', private: true, type: 'module' }));
    await run('npm', ['install', '--offline', '--no-audit', '--no-fund', join(packs, tarball)], { cwd: project, timeout: 120_000 });
  }, 240_000);
  afterAll(async () => {
    await worker.stop();
    await api.close();
    await ctx.teardown();
    rmSync(project, { recursive: true, force: true });
    rmSync(packs, { recursive: true, force: true });
  });

  const node = (script: string) => {
    writeFileSync(join(project, 'script.mjs'), script);
    return run(process.execPath, ['script.mjs'], { cwd: project, timeout: 60_000, env: { ...process.env, EV_API_KEY: ctx.key, EV_BASE_URL: api.url } });
  };

  it('ships only the built files, with type declarations', () => {
    const files = readdirSync(join(project, 'node_modules', 'email-verifier-sdk', 'dist'));
    expect(files).toEqual(expect.arrayContaining(['index.js', 'index.d.ts', 'errors.js', 'webhook.js', 'cli.js']));
    expect(files.some((f) => f.includes('test'))).toBe(false);
  });

  it('verifies an address, runs a bulk job end to end and raises a typed error, from an empty project', async () => {
    const { stdout } = await node(`
      import { EmailVerifier, ServerError } from 'email-verifier-sdk';
      const ev = new EmailVerifier({ apiKey: process.env.EV_API_KEY, baseUrl: process.env.EV_BASE_URL, sandbox: true, retryDelayMs: 1 });
      const one = await ev.verify('valid@example.com');
      const job = await ev.bulk.submit(Array.from({ length: 15 }, (_, i) => 'valid' + i + '@example.com'));
      const done = await ev.bulk.wait(job.job_id, { intervalMs: 20 });
      const csv = await new Response(await ev.bulk.download(job.job_id)).text();
      let retries = 0;
      const flaky = new EmailVerifier({ apiKey: process.env.EV_API_KEY, baseUrl: process.env.EV_BASE_URL, sandbox: true, retryDelayMs: 1, onRetry: () => retries++ });
      const error = await flaky.verifySingle('error-server@example.com').catch((e) => e);
      console.log(JSON.stringify({ one, job, done: done.status, lines: csv.trim().split('\\n').length,
        error: { isServerError: error instanceof ServerError, code: error.code, status: error.status, requestId: error.requestId }, retries }));
    `);
    const out = JSON.parse(stdout);
    expect(out.one).toMatchObject({ email: 'valid@example.com', status: 'deliverable', score: 95, is_disposable: false });
    expect(out.job).toMatchObject({ status: 'queued', total_emails: 15 });
    expect(out.done).toBe('completed');
    expect(out.lines).toBe(16);
    expect(out.error).toMatchObject({ isServerError: true, code: 'server_error', status: 500, requestId: expect.stringMatching(/^req_/) });
    expect(out.retries).toBe(2);
  });

  it('runs the CLI from the installed bin: verify and a bulk job with its result CSV', async () => {
    const bin = join(project, 'node_modules', '.bin', 'email-verifier');
    const env = { ...process.env, EV_API_KEY: ctx.key, EV_BASE_URL: api.url };
    const verify = await run(bin, ['verify', '--sandbox', 'valid@example.com'], { cwd: project, env });
    expect(verify.stdout).toBe('valid@example.com\tdeliverable\t95\taccepted_email\n');
    const bad = await run(bin, ['verify', '--sandbox', 'error-auth@example.com'], { cwd: project, env }).catch((e) => e);
    expect(bad.code).toBe(3);
    writeFileSync(join(project, 'list.csv'), ['email,id', ...Array.from({ length: 20 }, (_, i) => `valid${i}@cli.test,${i}`)].join('\n'));
    const bulk = await run(bin, ['bulk', 'list.csv', '--sandbox', '--out', 'out.csv'], { cwd: project, env });
    expect(bulk.stderr).toMatch(/20 addresses, 20 deliverable/);
    const lines = readFileSync(join(project, 'out.csv'), 'utf8').trim().split(/\r?\n/);
    expect(lines).toHaveLength(21);
    expect(lines[0]).toMatch(/^email,id,email,valid,/);
  });
});
