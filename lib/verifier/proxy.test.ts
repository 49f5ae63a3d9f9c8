import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../test/peers/common';
import { startDante, type DantePeer } from '../../test/peers/dante';
import { startDnsmasq, type DnsPeer } from '../../test/peers/dnsmasq';
import { startPostfix, type PostfixPeer } from '../../test/peers/postfix';
import { env } from '../config/env';
import { newProductionVerifier } from '../checks/production';
import { createDnsResolver } from './dns';
import { parseProxyUrl, type SocksProxy } from './proxy';
import { probeMailbox, type ProbeOptions } from './smtp';
import { createVerifier, type VerifierDeps } from './verify';

describe('parseProxyUrl', () => {
  it('reads host, port and optional percent-encoded credentials; empty means direct', () => {
    expect(parseProxyUrl('')).toBeNull();
    expect(parseProxyUrl('  ')).toBeNull();
    expect(parseProxyUrl('socks5://127.0.0.1:1080')).toEqual({ host: '127.0.0.1', port: 1080 });
    expect(parseProxyUrl('socks5://proxy.internal:1080/')).toEqual({ host: 'proxy.internal', port: 1080 });
    expect(parseProxyUrl('socks5://[::1]:9050')).toEqual({ host: '::1', port: 9050 });
    expect(parseProxyUrl('socks5://probe:p%40ss%3Aw@10.0.0.5:1080')).toEqual({ host: '10.0.0.5', port: 1080, username: 'probe', password: 'p@ss:w' });
  });

  it.each([
    ['socks5h://127.0.0.1:1080', /unsupported scheme socks5h:/],
    ['socks4://127.0.0.1:1080', /unsupported scheme/],
    ['http://127.0.0.1:1080', /unsupported scheme/],
    ['127.0.0.1:1080', /unsupported scheme|not a URL/],
    ['not a url', /not a URL/],
    ['socks5://127.0.0.1', /port/],
    ['socks5://127.0.0.1:0', /port/],
    ['socks5://127.0.0.1:70000', /not a URL|port/],
    ['socks5://127.0.0.1:1080/path', /path/],
    ['socks5://127.0.0.1:1080?x=1', /query/],
    ['socks5://user@127.0.0.1:1080', /password/],
    ['socks5://:secret@127.0.0.1:1080', /password/],
    ['socks5://user:%zz@127.0.0.1:1080', /percent-encoding/],
  ])('refuses %s', (url, message) => {
    expect(() => parseProxyUrl(url)).toThrow(message);
  });

  it('never repeats the URL (it may hold a password) in its errors', () => {
    expect(() => parseProxyUrl('socks5h://probe:hunter2@127.0.0.1:1080')).toThrow(/^(?!.*hunter2)/s);
  });

  it('is what EV_SMTP_PROXY goes through: a bad value is an invalid environment', () => {
    const previous = process.env.EV_SMTP_PROXY;
    try {
      delete process.env.EV_SMTP_PROXY;
      expect(env().EV_SMTP_PROXY).toBeNull();
      process.env.EV_SMTP_PROXY = 'socks5://probe:pw@127.0.0.1:1080';
      expect(env().EV_SMTP_PROXY).toEqual({ host: '127.0.0.1', port: 1080, username: 'probe', password: 'pw' });
      process.env.EV_SMTP_PROXY = 'socks5h://127.0.0.1:1080';
      expect(() => env()).toThrow(/Invalid environment: EV_SMTP_PROXY: unsupported scheme socks5h:/);
    } finally {
      if (previous === undefined) delete process.env.EV_SMTP_PROXY;
      else process.env.EV_SMTP_PROXY = previous;
    }
  });
});

// Real peers: Postfix answers SMTP on 127.0.0.1, dnsmasq points the test domains' MX at it, and
// Dante (or, for what Dante cannot be made to do without system accounts, a small SOCKS5 server
// written here) stands between the verifier and Postfix.
let dns: DnsPeer;
let postfix: PostfixPeer;
let dante: DantePeer;

beforeAll(async () => {
  dns = await startDnsmasq(['mx-host=example.test,mx.example.test,10', 'host-record=mx.example.test,127.0.0.1']);
  postfix = await startPostfix({ mailboxes: ['alice@example.test'] });
  dante = await startDante();
});

afterAll(async () => {
  await dante?.stop();
  await postfix?.stop();
  await dns?.stop();
});

const probe = (proxy: SocksProxy | null, overrides: Partial<ProbeOptions> = {}): ProbeOptions => ({
  ip: '127.0.0.1',
  port: postfix.port,
  heloName: 'verifier.test',
  mailFrom: 'check@verifier.test',
  connectTimeoutMs: 1000,
  commandTimeoutMs: 1000,
  recipient: 'alice@example.test',
  catchAllProbe: 'zz9q@example.test',
  proxy,
  ...overrides,
});

describe('probeMailbox through a SOCKS5 proxy', () => {
  it('sends the credentials and the checked IP (never a name) and gets Postfix answers through it', async () => {
    const socks = await startSocksServer({ username: 'probe', password: 'p@ss:w' });
    try {
      const result = await probeMailbox(probe({ host: '127.0.0.1', port: socks.port, username: 'probe', password: 'p@ss:w' }));
      expect(result).toMatchObject({ failure: null, stage: 'rcpt', reply: { code: 250, enhanced: '2.1.5' }, catchAllReply: { code: 550 } });
      // ATYP 1: an IPv4 address, so the proxy has nothing to resolve
      expect(socks.requests).toEqual([{ username: 'probe', password: 'p@ss:w', addressType: 1, host: '127.0.0.1', port: postfix.port }]);
    } finally {
      await socks.stop();
    }
  });

  it('reports refused credentials and a refused CONNECT as no_connect, saying which', async () => {
    const socks = await startSocksServer({ username: 'probe', password: 'right' });
    const refusing = await startSocksServer({ username: 'probe', password: 'right', reply: 2 });
    try {
      const wrong = await probeMailbox(probe({ host: '127.0.0.1', port: socks.port, username: 'probe', password: 'wrong' }));
      expect(wrong).toMatchObject({
        failure: 'no_connect',
        stage: 'connect',
        reply: null,
        detail: expect.stringMatching(/proxy handshake failed: .*Authentication failed/),
      });
      const denied = await probeMailbox(probe({ host: '127.0.0.1', port: refusing.port, username: 'probe', password: 'right' }));
      expect(denied).toMatchObject({ failure: 'no_connect', stage: 'connect', reply: null, detail: 'proxy refused the connection: NotAllowed' });
      expect(socks.requests).toEqual([]);
    } finally {
      await Promise.all([socks.stop(), refusing.stop()]);
    }
  });

  it('counts the proxy handshake against the connect timeout', async () => {
    const silent = await startSilentServer();
    try {
      const started = Date.now();
      const result = await probeMailbox(probe({ host: '127.0.0.1', port: silent.port }, { connectTimeoutMs: 300 }));
      expect(result).toMatchObject({ failure: 'no_connect', stage: 'connect', detail: 'proxy handshake timed out' });
      expect(Date.now() - started).toBeLessThan(5000); // the 300 ms timeout, not the silent proxy, ended it (which would hang)
    } finally {
      await silent.stop();
    }
  });

  it('destroys the socket to the proxy when the caller aborts mid-handshake', async () => {
    const silent = await startSilentServer();
    try {
      const started = Date.now();
      const result = await probeMailbox(probe({ host: '127.0.0.1', port: silent.port }, { connectTimeoutMs: 10_000, signal: AbortSignal.timeout(200) }));
      expect(result).toMatchObject({ failure: 'timeout', stage: 'connect' });
      expect(Date.now() - started).toBeLessThan(5000); // the 200 ms abort, well before the 10 s connect timeout
      expect(silent.accepted).toBe(1);
      await silent.allClosed(); // the proxy saw the connection go away, not just the caller stop waiting
    } finally {
      await silent.stop();
    }
  });

  it('refuses to hand the proxy anything but an IP', async () => {
    const socks = await startSocksServer({ username: 'probe', password: 'pw' });
    try {
      const result = await probeMailbox(probe({ host: '127.0.0.1', port: socks.port, username: 'probe', password: 'pw' }, { ip: 'mx.example.test' }));
      expect(result).toMatchObject({ failure: 'no_connect', detail: 'target is not an IP address' });
      expect(socks.connections).toBe(0);
    } finally {
      await socks.stop();
    }
  });
});

describe('verify through Dante (real SOCKS5 server)', () => {
  const verifier = (proxy: SocksProxy | null, overrides: Partial<VerifierDeps['smtp']> = {}) =>
    createVerifier({
      dns: createDnsResolver({ servers: [dns.server], timeoutMs: 1000 }),
      smtp: {
        port: postfix.port,
        heloName: 'verifier.test',
        mailFrom: 'check@verifier.test',
        connectTimeoutMs: 2000,
        commandTimeoutMs: 1000,
        proxy,
        ...overrides,
      },
      allowPrivateNetworks: true,
      perDomainConcurrency: 2,
      globalConcurrency: 10,
    });
  // Dante logs "pass(N): tcp/connect ]: <client> <dante> -> <external> 127.0.0.1.<postfix port>"
  const passedToPostfix = () => new RegExp(`pass\\(\\d+\\): tcp/connect .*127\\.0\\.0\\.1\\.${postfix.port}\\b`);

  it('gives deliverable and undeliverable verdicts, and Dante logged the connections', async () => {
    expect(dante.log()).not.toMatch(passedToPostfix());
    const v = verifier(parseProxyUrl(dante.url));
    expect((await v.verify('alice@example.test')).verdict).toMatchObject({ status: 'deliverable', reason: 'accepted_email', evidence: { smtp_code: 250 } });
    expect((await v.verify('nobody@example.test')).verdict).toMatchObject({ status: 'undeliverable', reason: 'rejected_email', evidence: { smtp_code: 550 } });
    // a bypassed proxy would leave no such line
    await eventually(() => expect(dante.log()).toMatch(passedToPostfix()));
  });

  it('answers unknown/no_connect, never invalid, when a Dante ruleset blocks the MX', async () => {
    const blocking = await startDante({ block: ['127.0.0.1/32'] });
    try {
      const v = verifier(parseProxyUrl(blocking.url));
      for (const email of ['alice@example.test', 'nobody@example.test']) {
        const { verdict } = await v.verify(email);
        expect(verdict).toMatchObject({ status: 'unknown', reason: 'no_connect', valid: true, evidence: { smtp_code: null, attempts: 1 } });
      }
      await eventually(() => expect(blocking.log()).toMatch(new RegExp(`block\\(\\d+\\): tcp/connect .*127\\.0\\.0\\.1\\.${postfix.port}\\b`)));
      expect(blocking.log()).not.toMatch(/pass\(\d+\): tcp\/connect/);
    } finally {
      await blocking.stop();
    }
  });

  it('answers unknown/no_connect quickly when nothing listens on the proxy port', async () => {
    const port = await freePort();
    const started = Date.now();
    const { verdict } = await verifier({ host: '127.0.0.1', port }, { connectTimeoutMs: 10_000 }).verify('alice@example.test');
    expect(verdict).toMatchObject({ status: 'unknown', reason: 'no_connect', evidence: { smtp_code: null } });
    expect(Date.now() - started).toBeLessThan(5000); // refused at once, well before the 10 s connect timeout
  });

  it('EV_SMTP_PROXY reaches the production verifier', async () => {
    const deadPort = await freePort();
    const keys = ['EV_DNS_SERVERS', 'EV_SMTP_PORT', 'EV_ALLOW_PRIVATE_NETWORKS', 'EV_SMTP_PROXY'] as const;
    const previous = Object.fromEntries(keys.map((k) => [k, process.env[k]]));
    const configure = (proxy: string) => {
      Object.assign(process.env, { EV_DNS_SERVERS: dns.server, EV_SMTP_PORT: String(postfix.port), EV_ALLOW_PRIVATE_NETWORKS: 'true', EV_SMTP_PROXY: proxy });
    };
    try {
      configure(dante.url);
      const before = dante.log().match(new RegExp(passedToPostfix().source, 'g'))?.length ?? 0;
      expect((await newProductionVerifier().verify('alice@example.test')).verdict.status).toBe('deliverable');
      await eventually(() => expect(dante.log().match(new RegExp(passedToPostfix().source, 'g'))?.length ?? 0).toBeGreaterThan(before));
      configure(`socks5://127.0.0.1:${deadPort}`);
      expect((await newProductionVerifier().verify('alice@example.test')).verdict).toMatchObject({ status: 'unknown', reason: 'no_connect' });
    } finally {
      for (const k of keys) {
        if (previous[k] === undefined) delete process.env[k];
        else process.env[k] = previous[k];
      }
    }
  });
});

/** Dante writes its log lines as sessions open and close: give it a moment. */
async function eventually(check: () => void, ms = 3000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      return check();
    } catch (error) {
      if (Date.now() > until) throw error;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

interface SocksRequest {
  username: string;
  password: string;
  addressType: number;
  host: string;
  port: number;
}

/**
 * A minimal SOCKS5 server (RFC 1928 CONNECT with RFC 1929 username/password) that records what the
 * client sent, then answers `reply` (0: relays to the requested address).
 */
async function startSocksServer(options: { username: string; password: string; reply?: number }) {
  const requests: SocksRequest[] = [];
  const sockets = new Set<net.Socket>();
  let connections = 0;
  const server = net.createServer(async (client) => {
    connections++;
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => {});
    let buffer = Buffer.alloc(0);
    let wake: (() => void) | null = null;
    const onData = (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      wake?.();
    };
    client.on('data', onData);
    client.on('close', () => wake?.());
    const read = async (n: number): Promise<Buffer> => {
      while (buffer.length < n) {
        if (client.destroyed) throw new Error('client went away');
        await new Promise<void>((resolve) => (wake = resolve));
      }
      const out = buffer.subarray(0, n);
      buffer = buffer.subarray(n);
      return out;
    };
    try {
      const [, methodCount] = await read(2);
      const methods = [...(await read(methodCount))];
      if (!methods.includes(2)) return void client.end(Buffer.from([5, 0xff]));
      client.write(Buffer.from([5, 2]));
      const [, userLength] = await read(2);
      const username = (await read(userLength)).toString();
      const [passwordLength] = await read(1);
      const password = (await read(passwordLength)).toString();
      if (username !== options.username || password !== options.password) return void client.end(Buffer.from([1, 1]));
      client.write(Buffer.from([1, 0]));
      const [, command, , addressType] = await read(4);
      let host: string;
      if (addressType === 1) host = [...(await read(4))].join('.');
      else if (addressType === 3) host = (await read((await read(1))[0])).toString();
      else host = (await read(16)).toString('hex');
      const port = (await read(2)).readUInt16BE();
      requests.push({ username, password, addressType, host, port });
      const refuse = (code: number) => client.end(Buffer.from([5, code, 0, 1, 0, 0, 0, 0, 0, 0]));
      if (command !== 1) return void refuse(7);
      if (options.reply) return void refuse(options.reply);
      const upstream = net.connect(port, host);
      sockets.add(upstream);
      upstream.on('close', () => {
        sockets.delete(upstream);
        client.destroy();
      });
      upstream.on('error', () => refuse(5));
      upstream.on('connect', () => {
        client.off('data', onData);
        client.write(Buffer.from([5, 0, 0, 1, 127, 0, 0, 1, 0, 0]));
        if (buffer.length) upstream.write(buffer);
        client.pipe(upstream).pipe(client);
      });
    } catch {
      client.destroy();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    requests,
    get connections() {
      return connections;
    },
    async stop() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Accepts connections and never answers: a proxy stuck in its handshake. */
async function startSilentServer() {
  const sockets = new Set<net.Socket>();
  let closed: () => void = () => {};
  let accepted = 0;
  const server = net.createServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.resume(); // read (and drop) the greeting, so the client's close is seen
    socket.on('error', () => {});
    socket.on('close', () => {
      sockets.delete(socket);
      if (sockets.size === 0) closed();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    get accepted() {
      return accepted;
    },
    /** resolves once every accepted connection has been closed by the client */
    allClosed: () =>
      new Promise<void>((resolve) => {
        if (sockets.size === 0) return resolve();
        closed = resolve;
      }),
    async stop() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
