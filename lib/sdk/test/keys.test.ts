import { PassThrough, Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setup } from '@/test/api/harness';
import { startApiServer } from '@/test/api/server';
import { main } from '../src/cli';
import { AuthenticationError, EmailVerifier } from '../src/index';

// Scoped and publishable keys through the SDK and the CLI, against the real API over HTTP.
describe('keys in the SDK and the CLI', () => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  let api: Awaited<ReturnType<typeof startApiServer>>;

  beforeAll(async () => {
    ctx = await setup('sqlite', { EV_PRODUCTION_ENGINE: 'sandbox' });
    api = await startApiServer();
  });
  afterAll(async () => {
    await api.close();
    await ctx.teardown();
  });

  const sdk = (apiKey: string, headers: Record<string, string> = {}) =>
    new EmailVerifier({
      apiKey,
      baseUrl: api.url,
      sandbox: true,
      maxRetries: 0,
      fetch: (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } }),
    });

  async function cli(args: string[]) {
    const stdout = new PassThrough();
    let out = '';
    let err = '';
    stdout.on('data', (c) => (out += c));
    const stderr = new PassThrough();
    stderr.on('data', (c) => (err += c));
    const code = await main(args, { stdout, stderr, stdin: Readable.from(['']), env: { EV_API_KEY: ctx.key, EV_BASE_URL: api.url } });
    return { code, out, err };
  }

  it('creates a verify-only key, edits it and revokes it', async () => {
    const owner = sdk(ctx.key);
    const created = await owner.keys.create({ name: 'CRM', scopes: ['verify'], expires_at: new Date(Date.now() + 3_600_000).toISOString() });
    expect(created).toMatchObject({ name: 'CRM', type: 'secret', scopes: ['verify'] });
    const crm = sdk(created.key);
    expect((await crm.verify('valid@example.com')).status).toBe('deliverable');
    const refused = await crm.account().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AuthenticationError);
    expect(refused).toMatchObject({ status: 403, code: 'insufficient_scope', body: { scope: 'account' } });

    const updated = await owner.keys.update(created.id, { scopes: ['verify', 'account'], expires_at: null });
    expect(updated).toMatchObject({ scopes: ['verify', 'account'], expires_at: null });
    expect((await owner.keys.list()).find((k) => k.id === created.id)).toMatchObject({ scopes: ['verify', 'account'] });
    await owner.keys.revoke(created.id);
    await expect(crm.verify('valid@example.com')).rejects.toMatchObject({ status: 401 });
  });

  it('verifies with a publishable key from its origin, and nothing else', async () => {
    const { key } = await sdk(ctx.key).keys.create({ type: 'publishable', allowed_origins: ['https://shop.example'] });
    const page = sdk(key, { origin: 'https://shop.example' });
    expect(await page.verify('valid@gmial.com')).toMatchObject({ did_you_mean: 'valid@gmail.com', evidence: null });
    await expect(sdk(key, { origin: 'https://elsewhere.example' }).verify('valid@example.com')).rejects.toMatchObject({
      status: 403,
      code: 'origin_not_allowed',
    });
    await expect(page.account()).rejects.toMatchObject({ status: 403, code: 'insufficient_scope' });
  });

  it('keys list, create, update and revoke from the command line', async () => {
    const created = await cli(['keys', 'create', '--name', 'nightly', '--scopes', 'jobs,history', '--allowed-ips', '10.0.0.0/8,2001:db8::/32']);
    expect(created.code, created.err).toBe(0);
    const key = JSON.parse(created.out);
    expect(key).toMatchObject({ name: 'nightly', scopes: ['jobs', 'history'], allowed_ips: ['10.0.0.0/8', '2001:db8::/32'] });
    const updated = await cli(['keys', 'update', key.id, '--scopes', 'all', '--allowed-ips', 'none']);
    expect(JSON.parse(updated.out)).toMatchObject({ scopes: ['verify', 'jobs', 'history', 'webhooks', 'rules', 'keys', 'account'], allowed_ips: null });
    const listed = await cli(['keys', 'list']);
    expect(listed.out).toMatch(new RegExp(`^${key.id}\\tsecret\\tverify,jobs,history,webhooks,rules,keys,account\\t-\\tnever\\tlive\\tnightly$`, 'm'));
    const publishable = await cli(['keys', 'create', '--publishable', '--origins', 'https://shop.example', '--checks-per-day', '300']);
    const pub = JSON.parse(publishable.out);
    expect(pub).toMatchObject({ type: 'publishable', allowed_origins: ['https://shop.example'], rate_limits: { checks_per_day: 300, checks_today: 0 } });
    expect(JSON.parse((await cli(['keys', 'update', pub.id, '--checks-per-day', '50'])).out)).toMatchObject({ rate_limits: { checks_per_day: 50 } });
    expect((await cli(['keys', 'list'])).out).toMatch(new RegExp(`^${pub.id}\\tpublishable\\tverify\\torigins=https://shop.example checks=0/50\\t`, 'm'));
    expect((await cli(['keys', 'revoke', key.id])).code).toBe(0);
    expect((await cli(['keys', 'revoke'])).code).toBe(2);
    const bad = await cli(['keys', 'create', '--scopes', 'everything']);
    expect(bad.code).toBe(6);
    expect(bad.err).toContain('scopes');
  });
});
