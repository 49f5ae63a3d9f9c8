// SSRF: webhook targets on private, loopback, link-local and metadata addresses, disguised IP forms,
// userinfo tricks and non-http schemes, with EV_ALLOW_PRIVATE_NETWORKS=false. SQLite.
// Cases: 46 refused targets + 3 method/field rows + 2 port rows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as webhooks from '@/app/v1/webhooks/route';
import { call, setup } from '../api/harness';
import { bounded, expectError, expectSane } from './hostile';

// [case, url] — every one must be 400 invalid_request with param "url", and no webhook stored
const REFUSED: [string, string][] = [
  ['loopback IPv4', 'http://127.0.0.1/hook'],
  ['loopback with port', 'http://127.0.0.1:3000/v1/keys'],
  ['other loopback address', 'http://127.1.2.3/'],
  ['localhost', 'http://localhost/hook'],
  ['localhost with trailing dot', 'http://localhost./hook'],
  ['LOCALHOST upper-case', 'https://LOCALHOST/hook'],
  ['IPv6 loopback', 'http://[::1]/hook'],
  ['IPv6 unspecified', 'http://[::]/hook'],
  ['cloud metadata', 'http://169.254.169.254/latest/meta-data'],
  ['metadata, https', 'https://169.254.169.254/latest/meta-data/iam/security-credentials/'],
  ['AWS IPv6 metadata', 'http://[fd00:ec2::254]/latest/meta-data'],
  ['RFC 1918 10/8', 'http://10.0.0.1/'],
  ['RFC 1918 172.16/12', 'http://172.16.0.1/'],
  ['RFC 1918 192.168/16', 'http://192.168.1.1/'],
  ['CGNAT 100.64/10', 'http://100.64.0.1/'],
  ['0.0.0.0', 'http://0.0.0.0/'],
  ['bare 0', 'http://0/'],
  ['IPv4-mapped IPv6 loopback', 'http://[::ffff:127.0.0.1]/'],
  ['IPv4-mapped IPv6 private (hex form)', 'http://[::ffff:a00:1]/'],
  ['IPv6 link-local', 'http://[fe80::1]/'],
  ['IPv6 unique-local', 'http://[fc00::1]/'],
  ['NAT64 of loopback', 'http://[64:ff9b::7f00:1]/'],
  // IPv6 transition ranges: each carries an IPv4 address a gateway may turn into a private one
  ['IPv4-compatible ::/96', 'http://[::a00:1]/'],
  ['IPv4-compatible dotted', 'http://[::10.0.0.1]/'],
  ['IPv4-mapped public address', 'http://[::ffff:8.8.8.8]/'],
  ['IPv4-translated ::ffff:0:0:0/96', 'http://[::ffff:0:a00:1]/'],
  ['NAT64 of a private address', 'http://[64:ff9b::a00:1]/'],
  ['local-use NAT64 64:ff9b:1::/48', 'http://[64:ff9b:1::a00:1]/'],
  ['6to4 of a private address', 'http://[2002:a00:1::1]/'],
  ['6to4 of loopback', 'http://[2002:7f00:1::1]/'],
  ['Teredo 2001::/32', 'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/'],
  ['site-local fec0::/10', 'http://[fec0::1]/'],
  // ports outside EV_WEBHOOK_PORTS (80, 443, 1024-65535 by default), even on public addresses
  ['SMTP port', 'http://93.184.216.34:25/'],
  ['Redis-looking low port', 'https://93.184.216.34:873/'],
  ['decimal IP', 'http://2130706433/'],
  ['hex IP', 'http://0x7f000001/'],
  ['octal IP', 'http://0177.0.0.1/'],
  ['short dotted IP', 'http://127.1/'],
  ['mixed hex dotted IP', 'http://0x7f.0.0.1/'],
  ['userinfo trick', 'http://evil.com@127.0.0.1/'],
  ['userinfo with password', 'http://user:pass@example.com/'],
  ['file scheme', 'file:///etc/passwd'],
  ['gopher scheme', 'gopher://127.0.0.1:25/_HELO'],
  ['javascript scheme', 'javascript:alert(1)'],
  ['ftp scheme', 'ftp://example.com/'],
  ['data scheme', 'data:text/plain,hi'],
];

describe('hostile webhook targets (sqlite)', () => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  beforeAll(async () => {
    process.env.EV_ALLOW_PRIVATE_NETWORKS = 'false';
    ctx = await setup('sqlite');
  });
  afterAll(async () => ctx.teardown());

  it.each(REFUSED)('refuses %s (%s) with 400 invalid_request param url', async (_what, url) => {
    const res = await bounded(call(webhooks.POST, { key: ctx.key, body: { url } }));
    expectError(res, 400, 'invalid_request', 'url');
    expect(res.json.secret).toBeUndefined();
    const listed = await call(webhooks.GET, { key: ctx.key });
    expect(listed.json.data).toEqual([]);
  });

  it.each([
    ['in production mode too', { sandbox: false }],
    ['with events and a description', { body: { url: 'http://127.0.0.1/x', events: ['bulk.completed'], description: 'd' } }],
    ['with a CRLF header-injection attempt in the URL', { body: { url: 'http://127.0.0.1/\r\nX-Evil: 1' } }],
  ] as const)('refuses a loopback target %s', async (_what, extra) => {
    const res = await bounded(call(webhooks.POST, { key: ctx.key, body: { url: 'http://127.0.0.1/x' }, ...extra }));
    expectSane(res);
    expectError(res, 400, 'invalid_request', 'url');
  });

  it('says which ports are allowed, and takes a wider list from EV_WEBHOOK_PORTS', async () => {
    const res = await call(webhooks.POST, { key: ctx.key, body: { url: 'http://93.184.216.34:25/' } });
    expect(res.json.message).toMatch(/port 25 .*80,443,1024-65535/);
    process.env.EV_WEBHOOK_PORTS = '25,80,443';
    try {
      const wider = await call(webhooks.POST, { key: ctx.key, body: { url: 'http://93.184.216.34:25/' } });
      expect(wider.status).toBe(201);
    } finally {
      delete process.env.EV_WEBHOOK_PORTS;
    }
  });
});
