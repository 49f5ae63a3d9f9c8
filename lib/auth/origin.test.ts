import { describe, expect, it } from 'vitest';
import { parseTrustProxy, type ProxyTrust } from '../config/trust-proxy';
import { addressFrom } from './origin';

// Every setup of docs/security.md ("The client address"), with the headers a client forges. A proxy
// is modelled by what its documented configuration does to the headers it passes on; the server
// sees the request the last proxy sends (Next.js adds X-Forwarded-For only when there is none).

type Headers_ = Record<string, string>;
type Proxy = { address: string; does: (headers: Headers_, peer: string) => Headers_ };

// nginx `proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for` (Caddy, Traefik, ALB alike)
const appends = (address: string): Proxy => ({
  address,
  does: (h, peer) => ({ ...h, 'x-forwarded-for': h['x-forwarded-for'] ? `${h['x-forwarded-for']}, ${peer}` : peer }),
});
// nginx `proxy_set_header X-Real-IP $remote_addr` alone: X-Forwarded-For passes through as the client sent it
const realIp = (address: string): Proxy => ({ address, does: (h, peer) => ({ ...h, 'x-real-ip': peer }) });
// a CDN that writes the visitor into its own header and appends to X-Forwarded-For (Cloudflare)
const cdn = (address: string): Proxy => ({ address, does: (h, peer) => ({ ...appends(address).does(h, peer), 'cf-connecting-ip': peer }) });

function arrive(client: string, sent: Headers_, proxies: Proxy[]): Headers {
  let headers = sent;
  let peer = client;
  for (const proxy of proxies) {
    headers = proxy.does(headers, peer);
    peer = proxy.address;
  }
  if (!headers['x-forwarded-for']) headers = { ...headers, 'x-forwarded-for': peer }; // Next.js fills it in from the socket
  return new Headers(headers);
}

const FORGED: Headers_[] = [
  {},
  { 'x-forwarded-for': '198.51.100.66' },
  { 'x-forwarded-for': '198.51.100.66, 10.0.0.2' },
  { 'x-forwarded-for': 'not-an-address, 198.51.100.66' },
  { 'x-real-ip': '198.51.100.66', 'cf-connecting-ip': '198.51.100.66', 'true-client-ip': '198.51.100.66' },
  { 'x-forwarded-for': '10.0.0.9', 'x-real-ip': '10.0.0.9' },
];

const SETUPS: { name: string; trust: string; proxies: Proxy[] }[] = [
  { name: 'one proxy appending X-Forwarded-For', trust: '1', proxies: [appends('10.0.0.2')] },
  { name: 'one proxy, EV_TRUST_PROXY=true (one hop)', trust: 'true', proxies: [appends('10.0.0.2')] },
  { name: 'a CDN, then a proxy, both appending', trust: '2', proxies: [appends('192.0.2.10'), appends('10.0.0.2')] },
  { name: 'proxies named by their networks', trust: '10.0.0.0/8, 192.0.2.0/24', proxies: [appends('192.0.2.10'), appends('10.0.0.2'), appends('10.0.0.3')] },
  { name: 'a proxy that sets only X-Real-IP', trust: 'header:X-Real-IP', proxies: [realIp('10.0.0.2')] },
  { name: 'Cloudflare in front of a proxy that sets only X-Real-IP', trust: 'header:CF-Connecting-IP', proxies: [cdn('192.0.2.10'), realIp('10.0.0.2')] },
];

const trustOf = (text: string): ProxyTrust => parseTrustProxy(text)!;

describe('the client address', () => {
  for (const setup of SETUPS) {
    it(`${setup.name}: EV_TRUST_PROXY=${setup.trust} finds the client whatever it sends`, () => {
      for (const client of ['203.0.113.9', '2001:db8:5::7']) {
        for (const forged of FORGED) {
          expect(addressFrom(arrive(client, forged, setup.proxies), trustOf(setup.trust)), JSON.stringify(forged)).toBe(client);
        }
      }
    });
  }

  it('without a proxy of ours (the default), nothing the client sends names it: one shared bucket', () => {
    for (const forged of FORGED) expect(addressFrom(arrive('203.0.113.9', forged, []), trustOf('false'))).toBe('shared');
  });

  it("the issue's case: behind a proxy that sets only X-Real-IP, a forged X-Forwarded-For does not win", () => {
    const headers = arrive('203.0.113.9', { 'x-forwarded-for': '198.51.100.66' }, [realIp('10.0.0.2')]);
    expect(addressFrom(headers, trustOf('header:X-Real-IP'))).toBe('203.0.113.9');
    // the old reading (the last X-Forwarded-For hop) gave the forged address
    expect(headers.get('x-forwarded-for')).toBe('198.51.100.66');
  });

  it('a header that is missing, a list or a name is no address', () => {
    const trust = trustOf('header:X-Real-IP');
    expect(addressFrom(new Headers({}), trust)).toBe('shared');
    expect(addressFrom(new Headers({ 'x-real-ip': '203.0.113.9, 198.51.100.66' }), trust)).toBe('shared');
    expect(addressFrom(new Headers({ 'x-real-ip': 'localhost' }), trust)).toBe('shared');
    expect(addressFrom(new Headers({ 'x-real-ip': '[2001:db8::1]:443' }), trust)).toBe('2001:db8::1');
    expect(addressFrom(new Headers({ 'x-forwarded-for': '::ffff:203.0.113.9' }), trustOf('1'))).toBe('203.0.113.9');
  });

  it('reads EV_TRUST_PROXY: off, hops, networks, one header; refuses anything else', () => {
    expect(parseTrustProxy('false')).toEqual({ kind: 'none' });
    expect(parseTrustProxy('true')).toEqual({ kind: 'hops', hops: 1 });
    expect(parseTrustProxy('3')).toEqual({ kind: 'hops', hops: 3 });
    expect(parseTrustProxy('10.0.0.0/8,::1')).toEqual({ kind: 'networks', networks: ['10.0.0.0/8', '::1'] });
    expect(parseTrustProxy('header:CF-Connecting-IP')).toEqual({ kind: 'header', header: 'cf-connecting-ip' });
    for (const bad of ['yes', 'header:', 'header:X-Forwarded-For', '10.0.0.0/33', '10.0.0.0/8,nginx']) expect(parseTrustProxy(bad), bad).toBeNull();
  });
});
