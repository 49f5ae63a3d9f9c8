import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../peers/common';
import { startDnsmasq, type DnsPeer } from '../peers/dnsmasq';
import { startHostileSmtp, type HostileKind, type HostileSmtp } from '../peers/hostile-smtp';
import { startReceiver, type HostileReceiver, type ReceiverKind } from '../peers/hostile-http';
import { health, send, startServer, type Served } from './server';

// Hostile peers against the built server with its real default limits: mail servers an attacker
// puts behind a public MX, and webhook receivers an account registers. Each verdict is honest
// (`unknown`, never `undeliverable`), other accounts' jobs and deliveries keep flowing, the process
// stays up with /health answering within 2 s, and its resident memory under RSS_BOUND_MB.
const RSS_BOUND_MB = 700;

const MAIL: [HostileKind, string, string][] = [
  ['endless-continuation', 'endless.test', '127.0.0.11'],
  ['banner-without-newline', 'banner.test', '127.0.0.12'],
  ['many-short-lines', 'lines.test', '127.0.0.13'],
  ['trickle', 'trickle.test', '127.0.0.14'],
  ['greet-flood', 'flood.test', '127.0.0.15'],
];

let dns: DnsPeer;
let smtp: HostileSmtp[] = [];
let server: Served;

beforeAll(async () => {
  dns = await startDnsmasq(MAIL.flatMap(([, domain, ip]) => [`mx-host=${domain},mx.${domain},10`, `host-record=mx.${domain},${ip}`]));
  const port = await freePort();
  // one line every 400 ms: the 30 s conversation limit ends it before the 100-line reply cap would
  smtp = await Promise.all(MAIL.map(([kind, , ip]) => startHostileSmtp(kind, { host: ip, port, trickleMs: 400 })));
  server = await startServer({ EV_DNS_SERVERS: dns.server, EV_SMTP_PORT: String(port) });
});

afterAll(async () => {
  await server?.stop();
  await Promise.all(smtp.map((peer) => peer.stop()));
  await dns?.stop();
});

const auth = (i: number, sandbox: boolean): Record<string, string> => ({
  authorization: `Bearer ${server.keys[i]}`,
  ...(sandbox ? { 'x-ev-sandbox': 'true' } : {}),
});

/** Another account's 50-address sandbox job, from submission to completion, in ms. */
async function neighbourJob(label: string): Promise<number> {
  const started = performance.now();
  const emails = Array.from({ length: 50 }, (_, i) => `${label}${i}@example.com`);
  const submitted = await send(server.url, '/v1/verify/bulk', { headers: auth(1, true), body: JSON.stringify({ emails }) });
  expect(submitted.status, submitted.text).toBe(200);
  for (;;) {
    const status = await send(server.url, `/v1/verify/bulk/status/${submitted.json.job_id}`, { headers: auth(1, true) });
    if (status.json?.status === 'completed') return performance.now() - started;
    if (performance.now() - started > 30_000) throw new Error(`the neighbour's job is still ${status.json?.status} after 30 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function stillServing() {
  expect(server.exited(), server.log()).toBeNull();
  expect(await health(server.url)).toBeLessThan(2000);
  expect(server.peakRssMb()).toBeLessThan(RSS_BOUND_MB);
}

describe('hostile mail servers over real HTTP', () => {
  it('every hostile MX gets a bounded conversation and an honest unknown, while the server serves others', { timeout: 90_000 }, async () => {
    const checks = MAIL.map(([kind, domain]) =>
      send(server.url, '/v1/verify/single', { headers: auth(0, false), body: JSON.stringify({ email: `someone@${domain}` }), timeoutMs: 60_000 }).then(
        (answer) => [kind, answer] as const,
      ),
    );
    const healthTimes: number[] = [];
    const sampling = (async () => {
      for (let i = 0; i < 20; i++) {
        healthTimes.push(await health(server.url));
        await new Promise((r) => setTimeout(r, 500));
      }
    })();
    const neighbourMs = await neighbourJob('smtp');
    await sampling;
    for (const [kind, answer] of await Promise.all(checks)) {
      expect(answer.status, `${kind}: ${answer.text}`).toBe(200);
      expect(answer.json.status, `${kind}: ${answer.text}`).toBe('unknown');
      if (kind !== 'trickle') expect(answer.json.evidence.smtp_failure, `${kind}: ${answer.text}`).toMatch(/^protocol: /);
    }
    expect(neighbourMs).toBeLessThan(15_000);
    expect(Math.max(...healthTimes)).toBeLessThan(2000);
    await stillServing();
    // the trickling server was hung up on within the conversation limit, not kept for its gigabyte
    await new Promise((r) => setTimeout(r, 2000));
    for (const peer of smtp) expect(peer.stats().bytesSent).toBeLessThan(64 * 1024 * 1024);
  });
});

describe('hostile webhook receivers over real HTTP', () => {
  let receivers: Record<ReceiverKind, HostileReceiver>;

  beforeAll(async () => {
    const kinds: ReceiverKind[] = ['trickle', 'huge', 'slow-headers', 'ok'];
    const started = await Promise.all(kinds.map((kind) => startReceiver(kind, { trickleMs: 1000 })));
    receivers = Object.fromEntries(kinds.map((kind, i) => [kind, started[i]!])) as Record<ReceiverKind, HostileReceiver>;
  });

  afterAll(async () => {
    await Promise.all(Object.values(receivers ?? {}).map((receiver) => receiver.stop()));
  });

  async function register(account: number, url: string): Promise<string> {
    const answer = await send(server.url, '/v1/webhooks', { headers: auth(account, true), body: JSON.stringify({ url }) });
    expect(answer.status, answer.text).toBe(201);
    return answer.json.id ?? answer.json.data?.id;
  }

  it('a trickling, gigabyte or silent receiver delays only its own deliveries', { timeout: 90_000 }, async () => {
    const hostile = await Promise.all((['trickle', 'huge', 'slow-headers'] as const).map((kind) => register(0, receivers[kind].url)));
    await register(1, receivers.ok.url);

    // account 0's job completes and fans out to its three hostile receivers
    const emails = Array.from({ length: 20 }, (_, i) => `hostile${i}@example.com`);
    const own = await send(server.url, '/v1/verify/bulk', { headers: auth(0, true), body: JSON.stringify({ emails }) });
    expect(own.status, own.text).toBe(200);
    await new Promise((r) => setTimeout(r, 1000));

    // meanwhile account 1's job completes and its receiver hears of it promptly
    const neighbourMs = await neighbourJob('hook');
    expect(neighbourMs).toBeLessThan(15_000);
    const heard = performance.now();
    while (receivers.ok.stats().requests === 0 && performance.now() - heard < 10_000) await new Promise((r) => setTimeout(r, 50));
    expect(receivers.ok.stats().requests).toBeGreaterThan(0);

    // a test delivery to the trickling receiver answers within the attempt deadline (10 s), failed
    const test = await send(server.url, `/v1/webhooks/${hostile[0]}/test`, { method: 'POST', headers: auth(0, true), body: '{}', timeoutMs: 20_000 });
    expect(test.status, test.text).toBeLessThan(500);
    expect(test.ms).toBeLessThan(13_000);

    await stillServing();
    for (const kind of ['trickle', 'huge', 'slow-headers'] as const) {
      const stats = receivers[kind].stats();
      expect(stats.requests, kind).toBeGreaterThan(0);
      // one delivery is never sent twice at once
      expect(stats.maxOpenPerId, kind).toBe(1);
    }
    // the gigabyte body was not read: the server hung up after the headers
    expect(receivers.huge.stats().bytesSent).toBeLessThan(64 * 1024 * 1024);
  });
});
