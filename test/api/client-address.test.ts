import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as signup from '@/app/api/signup/route';
import * as history from '@/app/v1/history/route';
import { createApiKey } from '@/lib/accounts/keys';
import { DIALECTS } from '../databases';
import { answerOf, call, setup } from './harness';

// Item 3 of issue 29 through the routes: behind a proxy that sets only X-Real-IP
// (EV_TRUST_PROXY=header:X-Real-IP), an X-Forwarded-For the client wrote passes neither a key's
// allowed_ips nor the per-address sign-up limit. lib/auth/origin.test.ts covers every setup.

describe.each(DIALECTS)('the client address behind a proxy that sets X-Real-IP (%s)', (dialect) => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  beforeAll(async () => {
    ctx = await setup(dialect, { EV_TRUST_PROXY: 'header:X-Real-IP', EV_SIGNUPS_PER_IP: '2', EV_CREATE_RATE_PER_MINUTE: '1000' });
  });
  afterAll(() => ctx?.teardown());

  it('allowed_ips: a forged X-Forwarded-For naming an allowed address is refused; the address the proxy wrote decides', async () => {
    const { key } = await createApiKey(ctx.database, ctx.account.id, { name: 'office', allowed_ips: ['203.0.113.0/24'] });
    const forged = await call(history.GET, { key, path: '/v1/history', headers: { 'x-forwarded-for': '203.0.113.5', 'x-real-ip': '198.51.100.66' } });
    expect(forged.status).toBe(403);
    expect(forged.json).toMatchObject({ error: 'ip_not_allowed', message: 'This key may not be used from 198.51.100.66.' });
    const real = await call(history.GET, { key, path: '/v1/history', headers: { 'x-forwarded-for': '198.51.100.66', 'x-real-ip': '203.0.113.9' } });
    expect(real.status).toBe(200);
  });

  it('sign-up: a client rotating X-Forwarded-For is still one address', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await answerOf(
        await signup.POST(
          new Request('http://app.test/api/signup', {
            method: 'POST',
            headers: {
              host: 'app.test',
              'content-type': 'application/json',
              origin: 'http://app.test',
              'x-real-ip': '198.51.100.77',
              'x-forwarded-for': `203.0.113.${i + 1}`,
            },
            body: JSON.stringify({ email: `rotating${i}-${dialect}@example.com`, password: 'long enough' }),
          }),
        ),
      );
      statuses.push(res.status);
    }
    expect(statuses).toEqual([201, 201, 429]);
  });
});
